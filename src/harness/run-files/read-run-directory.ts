import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { readEpisodeRecords } from '../../core/run-files/read-episode-records.js';
import type { EpisodeRecord } from '../episode-record.js';
import { readRunSummary } from './read-run-summary.js';
import type { RunSummary } from './run-summary-schema.js';

/** The files of a run directory that reports and exports read. */
export interface RunDirectory {
  readonly directory: string;
  readonly episodes: readonly EpisodeRecord[];
  /** `summary.json`, when the run wrote one (a run killed before its end has none). */
  readonly summary: RunSummary | undefined;
}

/**
 * Reads and checks a run directory: its `episodes.jsonl` (a folder without one is a usage error
 * naming it) and its `summary.json` when there is one.
 */
export function readRunDirectory(directory: string): RunDirectory {
  const episodesPath = join(directory, 'episodes.jsonl');
  if (!existsSync(episodesPath)) {
    throw new UsageError(`${directory} is not a run directory (no episodes.jsonl)`);
  }
  const summaryPath = join(directory, 'summary.json');
  return {
    directory,
    episodes: readEpisodeRecords(episodesPath),
    summary: existsSync(summaryPath) ? readRunSummary(summaryPath) : undefined,
  };
}
