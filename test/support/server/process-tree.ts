import { readdirSync, readFileSync } from 'node:fs';

// Reads the process tree from /proc: how many sandboxes a server process has alive right now and how
// much memory it holds. Nothing here signals a process.

interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly comm: string;
}

function entries(): ProcEntry[] {
  const found: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // it ended while we looked
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split at the last ')'.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    found.push({ pid: Number(name), ppid, comm });
  }
  return found;
}

/** The processes below `root` (children, grandchildren, …), read from /proc. */
export function descendants(root: number): ProcEntry[] {
  const all = entries();
  const children = new Map<number, ProcEntry[]>();
  for (const entry of all) {
    const list = children.get(entry.ppid) ?? [];
    list.push(entry);
    children.set(entry.ppid, list);
  }
  const found: ProcEntry[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/**
 * Live sandboxes under `root`: bwrap processes whose parent is not itself bwrap (bwrap forks once
 * inside its namespaces, so one sandbox shows two bwrap processes, the outer one counted).
 */
export function liveSandboxes(root: number): number {
  const below = descendants(root);
  const byPid = new Map(below.map((entry) => [entry.pid, entry]));
  return below.filter((entry) => entry.comm === 'bwrap' && byPid.get(entry.ppid)?.comm !== 'bwrap').length;
}

/** The resident set size of `pid` in bytes (VmRSS of /proc/<pid>/status). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/** Bytes as MiB with one decimal, for the figures the tests print. */
export function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
