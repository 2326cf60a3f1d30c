import type { z } from 'zod';
import { DatasetError } from '../errors.js';

/**
 * A run-file format (a line of `episodes.jsonl`, `summary.json`): the newest `schemaVersion` this
 * build reads and writes, and the schema of that version. The schemas have no transforms or
 * defaults, so a value that passes its check is used as it was read (every field kept, in order).
 * When a version 2 comes, its reader migrates version 1 values here.
 */
export interface VersionedFormat<T> {
  /** What one value is, for messages: `episode record`, `run summary`. */
  readonly what: string;
  readonly version: number;
  readonly schema: z.ZodType<T>;
}

/** A missing field reads as "missing" rather than "expected string, received undefined". */
const messages: z.core.$ZodErrorMap = (issue) =>
  issue.code === 'invalid_type' && issue.input === undefined ? 'missing' : undefined;

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const [first] = issues;
  if (!first) return 'no detail';
  const path = first.path.length > 0 ? first.path.map(String).join('.') : 'the value';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return `${path}: ${first.message}${more}`;
}

/**
 * The `schemaVersion` a value was written with: 1 when it has none (files written before the
 * field existed are version 1 by definition). `where` names the file (and line) in the one-line error.
 */
export function schemaVersionOf(value: unknown, newest: number, where: string): number {
  if (typeof value !== 'object' || value === null || !('schemaVersion' in value)) return 1;
  const version = value.schemaVersion;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
    throw new DatasetError(
      'DATASET_INVALID',
      `${where} has an invalid schemaVersion ${JSON.stringify(version)} (expected a positive integer)`,
    );
  }
  if (version > newest) {
    throw new DatasetError(
      'DATASET_INVALID',
      `${where} has schemaVersion ${version}, newer than this intercode reads (${newest}): upgrade intercode to read it`,
    );
  }
  return version;
}

/**
 * Checks a parsed JSON value against `format`: its version first (a newer one is refused), then
 * its schema. Returns the value itself; throws a one-line `DatasetError` that starts with `where`.
 */
export function parseVersioned<T>(value: unknown, format: VersionedFormat<T>, where: string): T {
  schemaVersionOf(value, format.version, where);
  const result = format.schema.safeParse(value, { error: messages });
  if (!result.success) {
    throw new DatasetError(
      'DATASET_INVALID',
      `${where} is not a valid ${format.what}: ${describeIssues(result.error.issues)}`,
    );
  }
  return value as T;
}
