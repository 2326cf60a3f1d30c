import { UsageError } from '../core/errors.js';
import type { Task } from '../core/task.js';

/**
 * Selects tasks by index ranges (`0-9,12,20-`); every index must exist. Without a selection, all tasks.
 */
export function selectTasks(
  tasks: readonly Task[],
  selection: string | undefined,
  datasetId: string,
): Task[] {
  if (selection === undefined || selection.trim() === '') return [...tasks];
  const last = tasks.length - 1;
  const chosen = new Set<number>();
  for (const part of selection.split(',')) {
    const match = /^\s*(\d+)\s*(?:(-)\s*(\d+)?)?\s*$/.exec(part);
    if (!match) throw new UsageError(`--tasks: "${part}" is not an index or a range like 0-9`);
    const from = Number(match[1]);
    const to = match[2] ? (match[3] !== undefined ? Number(match[3]) : last) : from;
    if (to < from) throw new UsageError(`--tasks: range "${part}" runs backwards`);
    for (const index of [from, to]) {
      if (index > last)
        throw new UsageError(`--tasks: task index ${index} is out of range 0-${last} for ${datasetId}`);
    }
    for (let index = from; index <= to; index += 1) chosen.add(index);
  }
  return [...chosen].sort((a, b) => a - b).map((index) => tasks[index]!);
}
