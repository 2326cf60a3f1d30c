import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Host-side view of processes through /proc: what a sandbox left running, seen from outside it.
 * A process is named by pid and start time, so a reused pid never counts as the same process.
 */
export interface ProcessRef {
  readonly pid: number;
  readonly startTime: string;
}

/** The environment variable that marks processes a test starts inside a sandbox. */
export const MARK_VARIABLE = 'INTERCODE_TEST_MARK';

/** A fresh random marker value. */
export function newMarker(): string {
  return `m${randomBytes(8).toString('hex')}`;
}

/** A shell command that runs `command` with the marker in its environment. */
export function marked(marker: string, command = 'sleep 1000'): string {
  return `${MARK_VARIABLE}=${marker} ${command}`;
}

/**
 * A marked `sleep` that tries to get away: its own session (no process group or terminal to be
 * killed with) and an environment cleared of everything but the marker, sandbox labels included.
 */
export function detached(marker: string): string {
  return `setsid env -i ${MARK_VARIABLE}=${marker} /bin/sleep 1000`;
}

function stat(pid: number): { state: string; startTime: string } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: count from the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '?', startTime: fields[19] ?? '' };
  } catch {
    return null;
  }
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** A zombie (Z) or dying (X) process has ended: only its exit status is left. */
const ended = (state: string) => state === 'Z' || state === 'X';

/** True while the process runs. */
export function isRunning(process: ProcessRef): boolean {
  const now = stat(process.pid);
  return now !== null && now.startTime === process.startTime && !ended(now.state);
}

/** A running process by pid, or null. */
export function processRef(pid: number): ProcessRef | null {
  const now = stat(pid);
  return now && !ended(now.state) ? { pid, startTime: now.startTime } : null;
}

function childPids(pid: number): number[] {
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((task) => {
    try {
      return readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
        .split(' ')
        .filter((part) => part.trim() !== '')
        .map(Number);
    } catch {
      return [];
    }
  });
}

/** The running children of `pid`. */
export function children(pid: number): ProcessRef[] {
  return childPids(pid)
    .map(processRef)
    .filter((ref) => ref !== null);
}

/** Every running descendant of `pid` (children, their children, …). */
export function descendants(pid: number): ProcessRef[] {
  return childPids(pid).flatMap((child) => {
    const ref = processRef(child);
    return [...(ref ? [ref] : []), ...descendants(child)];
  });
}

/** Running processes whose environment holds `name` with exactly `value` (or a value `value` accepts). */
export function processesWithEnv(name: string, value: string | ((value: string) => boolean)): number[] {
  const matches = typeof value === 'string' ? (text: string) => text === value : value;
  const prefix = `${name}=`;
  const pids: number[] = [];
  for (const pid of allPids()) {
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue;
    }
    const hit = environ
      .split('\0')
      .some((entry) => entry.startsWith(prefix) && matches(entry.slice(prefix.length)));
    if (hit && processRef(pid)) pids.push(pid);
  }
  return pids;
}

/** Running processes started with `marked(marker, …)`, wherever they run on this kernel. */
export function markedProcesses(marker: string): number[] {
  return processesWithEnv(MARK_VARIABLE, marker);
}

/** Number of descriptors this process has open. */
export function openFileDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}
