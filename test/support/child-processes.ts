import { readdirSync, readFileSync } from 'node:fs';

/** The live child processes of this process (every thread's; zombies left out). */
export function childProcesses(): number[] {
  const pids: number[] = [];
  for (const task of readdirSync('/proc/self/task')) {
    const text = readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim();
    if (text) pids.push(...text.split(/\s+/).map(Number));
  }
  return pids.filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return !/^\S+ \(.*\) [ZX]/.test(stat);
    } catch {
      return false;
    }
  });
}

/** The live child processes not in `before`, once they number `expected` (or after two seconds). */
export async function settledChildren(expected: number, before: readonly number[]): Promise<number[]> {
  const added = () => childProcesses().filter((pid) => !before.includes(pid));
  for (let i = 0; i < 100; i++) {
    const now = added();
    if (now.length === expected) return now;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return added();
}
