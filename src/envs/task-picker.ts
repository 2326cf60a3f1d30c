import type { ResetOptions } from '../core/env.js';
import { EnvError } from '../core/errors.js';
import type { Task } from '../core/task.js';

/** Mulberry32: a small, well-distributed seeded generator, so seeded resets are reproducible. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The task a reset asks for: by id, by index, or at random only when a seed is given.
 * Without any of them, the first task (never a random one).
 */
export function pickTask(tasks: readonly Task[], options: ResetOptions = {}): Task {
  if (tasks.length === 0) throw new EnvError('ENV_TASK_NOT_FOUND', 'the dataset has no tasks');
  if (options.taskId !== undefined) {
    const task = tasks.find((candidate) => candidate.id === options.taskId);
    if (!task) throw new EnvError('ENV_TASK_NOT_FOUND', `no task with id "${options.taskId}"`);
    return task;
  }
  if (options.index !== undefined) {
    const task = Number.isInteger(options.index) ? tasks[options.index] : undefined;
    if (!task) {
      throw new EnvError(
        'ENV_TASK_NOT_FOUND',
        `task index ${options.index} is out of range 0-${tasks.length - 1}`,
      );
    }
    return task;
  }
  if (options.seed !== undefined) return tasks[Math.floor(seeded(options.seed)() * tasks.length)]!;
  return tasks[0]!;
}
