import { readFileSync } from 'node:fs';

/** Start time of a running process; null when it does not exist or has ended (a zombie). */
function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime); the command name (field 2) may contain spaces, so count after its ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // A zombie (Z) or dying (X) owner has ended: it will never clean up after itself.
    if (fields[0] === 'Z' || fields[0] === 'X') return null;
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

let current: string | undefined;

/** This process's owner label, `<pid>_<starttime>`: unique even when pids are reused. */
export function currentOwner(): string {
  current ??= `${process.pid}_${startTime(process.pid) ?? '0'}`;
  return current;
}

/** True when the process that wrote this owner label still runs. */
export function isOwnerAlive(owner: string): boolean {
  const match = /^(\d+)_(\d+)$/.exec(owner);
  if (!match) return true;
  return startTime(Number(match[1])) === match[2];
}
