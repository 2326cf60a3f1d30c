import { readFileSync } from 'node:fs';

/** The owner label of a running process, `<pid>_<starttime>` (as src/core/host/owner.ts makes it). */
export function ownerOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return `${pid}_${fields[19]}`;
}
