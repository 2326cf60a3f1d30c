import { readdirSync, readFileSync } from 'node:fs';

/**
 * Live bubblewrap sandboxes under process `rootPid` (default: this process): the `bwrap` processes
 * among its descendants whose parent is not itself `bwrap` (bwrap forks once inside its namespace).
 * Read from /proc; 0 where /proc cannot be read. The server reports it so a client (and the hostile-
 * traffic tests) can see that sandboxes are reaped.
 */
export function liveSandboxCount(rootPid: number = process.pid): number {
  let names: string[];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  const children = new Map<number, number[]>();
  const command = new Map<number, string>();
  for (const name of names) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split at the last ')'.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    const pid = Number(name);
    command.set(pid, comm);
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  let count = 0;
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    for (const child of children.get(pid) ?? []) {
      if (command.get(child) === 'bwrap' && command.get(pid) !== 'bwrap') count += 1;
      queue.push(child);
    }
  }
  return count;
}
