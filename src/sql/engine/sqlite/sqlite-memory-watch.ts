import { readFileSync } from 'node:fs';

/** How often the resident memory of a busy session process is read, ms. */
const WATCH_INTERVAL_MS = 50;

/** Resident memory of process `pid` in bytes (`VmRSS`), or undefined when it cannot be read. */
export function residentBytes(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The memory limit of a session process, enforced from this side: while the process has requests
 * to answer (`busy`), its resident memory is read every 50 ms, and `exceeded` is called once when
 * it passes `limitBytes`, with the reason as the process's own watchdog words it. An idle process
 * cannot grow, so an idle one costs nothing. (A process started without a parent-death signal
 * keeps its own watchdog thread, which checks both; see `sqlite-child.cjs`.)
 */
export class SqliteMemoryWatch {
  #timer: NodeJS.Timeout | undefined;
  #done = false;

  constructor(
    private readonly pid: number,
    private readonly limitBytes: number,
    private readonly busy: () => boolean,
    private readonly exceeded: (reason: string) => void,
  ) {}

  /** Watches from now until the process is idle again (a request was just sent). */
  wake(): void {
    if (this.#timer !== undefined || this.#done) return;
    this.#timer = setInterval(() => this.#check(), WATCH_INTERVAL_MS);
    this.#timer.unref();
  }

  /** Stops for good (the process ended). */
  stop(): void {
    this.#done = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #check(): void {
    if (!this.busy()) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const rss = residentBytes(this.pid);
    if (rss !== undefined && rss > this.limitBytes) {
      this.stop();
      this.exceeded(`memory limit exceeded (${Math.round(rss / 2 ** 20)} MiB)`);
    }
  }
}
