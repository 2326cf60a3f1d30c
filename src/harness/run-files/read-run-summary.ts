import { readFileSync } from 'node:fs';
import { DatasetError } from '../../core/errors.js';
import { parseVersioned, schemaVersionOf } from '../../core/run-files/versioned-format.js';
import { type RunSummary, runSummaryFormat } from './run-summary-schema.js';
import { RUN_SUMMARY_VERSION } from './run-summary-version.js';

/**
 * Reads and checks the `summary.json` at `path`. A summary written before `schemaVersion` existed
 * reads as version 1 (and is returned with `schemaVersion: 1`); a version 1 summary lacks the fields
 * version 2 added. One of a newer version, or one that is not JSON or not a valid summary, fails in
 * one line naming the file.
 */
export function readRunSummary(path: string): RunSummary {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DatasetError(
      'DATASET_INVALID',
      code ? `${path}: cannot read it (${code})` : `${path} is not valid JSON`,
    );
  }
  schemaVersionOf(value, RUN_SUMMARY_VERSION, path);
  const versioned =
    typeof value === 'object' && value !== null && !Array.isArray(value) && !('schemaVersion' in value)
      ? { schemaVersion: 1, ...value }
      : value;
  return parseVersioned(versioned, runSummaryFormat, path);
}
