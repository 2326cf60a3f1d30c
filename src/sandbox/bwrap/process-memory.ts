import { readFileSync } from 'node:fs';

/** The memory of processes `pids`, in bytes: proportional set size (shared pages split) and resident set size. */
export function processesMemory(pids: readonly number[]): { memoryBytes: number; rssBytes: number } {
  let memoryBytes = 0;
  let rssBytes = 0;
  for (const pid of pids) {
    const memory = processMemory(pid);
    memoryBytes += memory.pss;
    rssBytes += memory.rss;
  }
  return { memoryBytes, rssBytes };
}

function processMemory(pid: number): { pss: number; rss: number } {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const field = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
    return { pss: field('Pss'), rss: field('Rss') };
  } catch {
    return { pss: 0, rss: 0 };
  }
}
