import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

/** Mount points at or below `dir` in this mount namespace, deepest first. */
function mountsUnder(dir: string): string[] {
  let text = '';
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  const points: string[] = [];
  for (const line of text.split('\n')) {
    const point = line
      .split(' ')[4]
      ?.replace(/\\(\d{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
    if (point && (point === dir || point.startsWith(`${dir}/`))) points.push(point);
  }
  return points.sort((a, b) => b.length - a.length);
}

/**
 * Removes a build folder. An interrupted root-mode build can leave /proc, /sys or /dev mounted
 * inside it: those are unmounted first, and the folder is left alone if any stays mounted (a
 * recursive delete would otherwise reach into the host's /dev).
 */
export function removeTree(dir: string): void {
  for (const point of mountsUnder(dir)) spawnSync('umount', ['--lazy', point], { stdio: 'ignore' });
  if (mountsUnder(dir).length > 0) return;
  rmSync(dir, { recursive: true, force: true });
}
