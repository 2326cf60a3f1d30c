import type { ResetInfo } from '../../core/env.js';
import type { Task } from '../../core/task.js';
import { bashGoldInfo } from './nl2bash-errata.js';

/** A Bash reset's info: the task, and the gold it is scored against (with its erratum, if any). */
export function bashResetInfo(task: Task): ResetInfo {
  return { taskId: task.id, index: task.index, query: task.query, group: task.group, ...bashGoldInfo(task) };
}
