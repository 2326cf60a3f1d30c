import { DatasetError } from '../core/errors.js';
import type { Task } from '../core/task.js';

/** Where a record comes from, for error messages: `<file>: <at>` (`task 3`, `line 7`). */
export interface RecordPlace {
  readonly file: string;
  readonly at: string;
}

function invalid(place: RecordPlace, problem: string): DatasetError {
  return new DatasetError('DATASET_INVALID', `${place.file}: ${place.at} ${problem}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function goldOf(value: unknown, place: RecordPlace): string | readonly string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  throw invalid(place, 'has a "gold" that is neither a string nor a list of strings');
}

/**
 * Turns one task record into a Task: `query` (required) and `gold` become fields, every other field of
 * the record is kept in `meta` as it is. Throws a one-line DatasetError naming the file and the place.
 */
export function taskFromRecord(
  record: unknown,
  place: RecordPlace,
  shape: { readonly index: number; readonly id: string; readonly group?: string | undefined },
): Task {
  if (!isRecord(record)) throw invalid(place, 'is not a JSON object');
  const { query, gold, ...meta } = record;
  if (typeof query !== 'string' || query.trim() === '')
    throw invalid(place, 'has no "query" (a non-empty string)');
  const goldValue = goldOf(gold, place);
  return {
    id: shape.id,
    index: shape.index,
    query,
    ...(goldValue === undefined ? {} : { gold: goldValue }),
    ...(shape.group === undefined ? {} : { group: shape.group }),
    meta,
  };
}

/** Throws a DatasetError when two tasks share an id. */
export function checkUniqueIds(tasks: readonly Task[], file: string): void {
  const seen = new Set<string>();
  for (const task of tasks) {
    if (seen.has(task.id)) {
      throw new DatasetError('DATASET_INVALID', `${file}: task id "${task.id}" appears more than once`);
    }
    seen.add(task.id);
  }
}
