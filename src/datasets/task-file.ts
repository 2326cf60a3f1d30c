import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { DatasetError } from '../core/errors.js';
import type { Dataset, Task } from '../core/task.js';
import { jsonErrorLine } from './json-error-line.js';
import { checkUniqueIds, type RecordPlace, taskFromRecord } from './task-from-record.js';

/** A record of a task file with where it was found and the id it gets unless it names its own. */
interface PlacedRecord {
  readonly record: unknown;
  readonly place: RecordPlace;
  readonly defaultId: string;
}

function invalid(message: string, cause?: unknown): DatasetError {
  return new DatasetError('DATASET_INVALID', message, cause === undefined ? undefined : { cause });
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new DatasetError('DATASET_UNKNOWN', `task file ${path} does not exist`);
    throw invalid(`cannot read task file ${path}: ${(error as Error).message}`, error);
  }
}

function jsonRecords(path: string, text: string): PlacedRecord[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const line = jsonErrorLine(text);
    const message = (error as Error).message.replace(/\s+/g, ' ');
    throw invalid(`${path}: malformed JSON at line ${line} (${message})`, error);
  }
  if (Array.isArray(data)) {
    return data.map((record, index) => ({
      record,
      place: { file: path, at: `task ${index}` },
      defaultId: `${index}`,
    }));
  }
  if (typeof data === 'object' && data !== null) {
    return Object.entries(data).map(([key, record]) => ({
      record,
      place: { file: path, at: `task "${key}"` },
      defaultId: key,
    }));
  }
  throw invalid(`${path}: expected a JSON array of tasks or an object of tasks keyed by index`);
}

function jsonlRecords(path: string, text: string): PlacedRecord[] {
  const records: PlacedRecord[] = [];
  text.split('\n').forEach((line, lineIndex) => {
    if (line.trim() === '') return;
    const at = `line ${lineIndex + 1}`;
    try {
      records.push({ record: JSON.parse(line), place: { file: path, at }, defaultId: `${records.length}` });
    } catch (error) {
      throw invalid(
        `${path}: ${at} is not valid JSON (${(error as Error).message.replace(/\s+/g, ' ')})`,
        error,
      );
    }
  });
  return records;
}

function toTask({ record, place, defaultId }: PlacedRecord, index: number): Task {
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    return taskFromRecord(record, place, { index, id: defaultId });
  const { id, group, ...rest } = record as Record<string, unknown>;
  if (id !== undefined && typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) {
    throw invalid(`${place.file}: ${place.at} has an "id" that is neither a string nor a number`);
  }
  if (group !== undefined && typeof group !== 'string') {
    throw invalid(`${place.file}: ${place.at} has a "group" that is not a string`);
  }
  return taskFromRecord(rest, place, { index, id: id === undefined ? defaultId : String(id), group });
}

/**
 * Loads a user's own task file: `.json` (an array of task objects, or an object of them keyed by index)
 * or `.jsonl` (one task object per line). Each task needs `query`; `gold`, `id` and `group` are optional;
 * every other field goes to `meta`. The environment is given by the caller.
 */
export function loadTaskFile(path: string, env: string): Dataset {
  const text = readText(path);
  const extension = extname(path).toLowerCase();
  if (extension !== '.json' && extension !== '.jsonl') {
    throw invalid(`task file ${path} must end in .json or .jsonl`);
  }
  const records = extension === '.jsonl' ? jsonlRecords(path, text) : jsonRecords(path, text);
  if (records.length === 0) throw invalid(`task file ${path} has no tasks`);
  const tasks = records.map(toTask);
  checkUniqueIds(tasks, path);
  return { id: path, env, tasks, assets: {} };
}
