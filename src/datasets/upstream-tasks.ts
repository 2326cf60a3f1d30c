import { readFile } from 'node:fs/promises';
import { DatasetError } from '../core/errors.js';
import type { Task } from '../core/task.js';
import { fetchUpstreamFile } from './fetch-upstream-file.js';
import { checkUniqueIds, taskFromRecord } from './task-from-record.js';

/** How the records of one upstream task file become tasks. */
export interface UpstreamTaskShape {
  /** The task id; default: the upstream index as a string. */
  readonly id?: (record: Record<string, unknown>, index: number) => string;
  /** The group of a task (file system, hardness, tag); default: none. */
  readonly group?: (record: Record<string, unknown>) => string | undefined;
  /** Fields added to every task's meta (after the record's own fields). */
  readonly meta?: (record: Record<string, unknown>) => Record<string, unknown>;
  /** Position of the first task (for datasets made of several files). */
  readonly firstIndex?: number;
}

/** Reads the JSON array of records of an upstream file (downloaded and verified first). */
export async function readUpstreamRecords(path: string): Promise<unknown[]> {
  const local = await fetchUpstreamFile(path);
  let data: unknown;
  try {
    data = JSON.parse(await readFile(local, 'utf8'));
  } catch (error) {
    throw new DatasetError('DATASET_INVALID', `${path}: not valid JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  if (!Array.isArray(data))
    throw new DatasetError('DATASET_INVALID', `${path}: expected a JSON array of tasks`);
  return data;
}

function field(record: unknown, shape: (record: Record<string, unknown>) => unknown): unknown {
  return typeof record === 'object' && record !== null ? shape(record as Record<string, unknown>) : undefined;
}

/** Loads the tasks of one upstream JSON file. */
export async function loadUpstreamTasks(path: string, shape: UpstreamTaskShape = {}): Promise<Task[]> {
  const records = await readUpstreamRecords(path);
  const first = shape.firstIndex ?? 0;
  const tasks = records.map((record, index) => {
    const place = { file: path, at: `task ${index}` };
    const id = shape.id ? field(record, (r) => shape.id!(r, index)) : String(index);
    const group = shape.group ? field(record, shape.group) : undefined;
    const task = taskFromRecord(record, place, {
      index: first + index,
      id: typeof id === 'string' ? id : String(index),
      group: typeof group === 'string' ? group : undefined,
    });
    const extra = shape.meta ? field(record, shape.meta) : undefined;
    return extra ? { ...task, meta: { ...task.meta, ...(extra as Record<string, unknown>) } } : task;
  });
  checkUniqueIds(tasks, path);
  return tasks;
}
