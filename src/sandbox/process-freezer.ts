import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Stopped processes, until `resume` lets them run again. */
export interface Quiesced {
  /** Lets every process stopped by `quiesce` run again (those it killed stay dead). */
  resume(): Promise<void>;
}

/** How long stopping may take before the processes still running are killed instead. */
const STOP_WITHIN_MS = 500;

/** Rounds of {@link stopProcesses} that look again at once, before it waits a millisecond between rounds. */
const IMMEDIATE_ROUNDS = 16;

/** A task's state letter from `/proc/<pid>/task/<tid>/stat`, undefined once it is gone. */
function taskStates(pid: number): string[] | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const states: string[] = [];
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
      // The command name, in parentheses, may hold anything: the state follows its last ')'.
      states.push(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
    } catch {
      // This thread is gone.
    }
  }
  return states;
}

/** Stopped (by a signal or a tracer), dead or a zombie: it cannot change anything any more. */
const still = (state: string) => state === 'T' || state === 't' || state === 'Z' || state === 'X';

/** The children of every thread of `pid`. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return children;
  }
  for (const tid of tids) {
    try {
      for (const part of readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1').split(' ')) {
        if (part.trim() !== '') children.push(Number(part));
      }
    } catch {
      // Gone.
    }
  }
  return children;
}

/**
 * Every process below `roots` (the roots included). Orphans are re-parented to the init process of
 * their pid namespace, itself below its root, so a sandbox's processes cannot leave this tree.
 */
export function processTree(roots: readonly number[]): number[] {
  const seen = new Set<number>();
  const queue = [...roots];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    queue.push(...childrenOf(pid));
  }
  return [...seen];
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/**
 * Stops every process `list()` names with SIGSTOP (which no process can catch, block or ignore) and
 * waits until each of their threads is stopped, listing again after each round, so that a process
 * forked meanwhile is stopped too (a stopped process forks no more). Processes that are already
 * stopped are left as they are, and not resumed later. A process that does not stop within
 * {@link STOP_WITHIN_MS} (stuck in the kernel) is killed. Works without cgroups and without root:
 * the caller lists the processes (a cgroup's, or the tree of the sandbox's outer processes).
 */
export async function stopProcesses(list: () => readonly number[]): Promise<Quiesced> {
  const stopped = new Set<number>();
  const untouched = new Set<number>();
  const deadline = performance.now() + STOP_WITHIN_MS;
  for (let round = 0; ; round += 1) {
    const pids = list();
    let moving = false;
    for (const pid of pids) {
      if (untouched.has(pid)) continue;
      const states = taskStates(pid);
      if (states === undefined) continue;
      const quiet = states.every(still);
      if (!stopped.has(pid)) {
        if (quiet && round === 0) {
          untouched.add(pid);
          continue;
        }
        stopped.add(pid);
        signal(pid, 'SIGSTOP');
        moving = true;
      } else if (!quiet) {
        moving = true;
        // A tracer may have swallowed the stop: ask again.
        signal(pid, 'SIGSTOP');
      }
    }
    if (!moving) break;
    if (performance.now() > deadline) {
      for (const pid of list()) {
        const states = taskStates(pid);
        if (states !== undefined && !states.every(still)) signal(pid, 'SIGKILL');
      }
      break;
    }
    // A stop takes effect once its process is scheduled, which is usually within a few hundred
    // microseconds: look again at once for a bounded number of rounds (each reads a few /proc files,
    // yielding to the event loop between them), then every millisecond (a longer busy loop would
    // only take the CPU those processes need to stop).
    if (round < IMMEDIATE_ROUNDS) await new Promise((resolve) => setImmediate(resolve));
    else await sleep(1);
  }
  return {
    resume: async () => {
      for (const pid of stopped) signal(pid, 'SIGCONT');
    },
  };
}
