import { readdirSync, readFileSync } from 'node:fs';

const PAGE_BYTES = 4096;

/**
 * Resident memory of process `rootPid` and all its descendants, bytes, from /proc (a session's env
 * may live in child processes: a SQLite worker, a sandbox). 0 where /proc cannot be read.
 */
export function processTreeRssBytes(rootPid: number = process.pid): number {
  const children = new Map<number, number[]>();
  let names: string[];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  for (const name of names) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid);
      if (list) list.push(Number(name));
      else children.set(ppid, [Number(name)]);
    } catch {
      // The process ended while we looked.
    }
  }
  let total = 0;
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    try {
      total += Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_BYTES;
    } catch {
      continue;
    }
    queue.push(...(children.get(pid) ?? []));
  }
  return total;
}
