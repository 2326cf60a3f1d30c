import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collector: (() => void) | null | undefined;

/** The V8 garbage collector as a function, exposed on demand when the process did not start with it. */
export function garbageCollector(): (() => void) | null {
  if (collector !== undefined) return collector;
  const global = globalThis as { gc?: () => void };
  if (typeof global.gc === 'function') {
    collector = global.gc;
    return collector;
  }
  try {
    setFlagsFromString('--expose-gc');
    collector = runInNewContext('gc') as () => void;
  } catch {
    collector = null;
  }
  return collector;
}

/** Bytes of the JavaScript heap in use after a full collection, or null without a collector. */
export function heapUsedAfterGc(): number | null {
  const gc = garbageCollector();
  if (!gc) return null;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
