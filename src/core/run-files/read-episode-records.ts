import { readFileSync } from 'node:fs';
import { DatasetError } from '../errors.js';
import { type EpisodeRecord, episodeRecordFormat } from './episode-record-schema.js';
import { parseJsonLines } from './parse-json-lines.js';
import { parseVersioned } from './versioned-format.js';

/** A checked line without its `schemaVersion` (the record itself is what callers use and write again). */
function withoutVersion(value: EpisodeRecord): EpisodeRecord {
  if (!('schemaVersion' in value)) return value;
  const { schemaVersion: _version, ...record } = value as EpisodeRecord & { schemaVersion: unknown };
  return record;
}

/**
 * The records of `episodes.jsonl` text, each checked against the episode record schema of its
 * `schemaVersion` (none: version 1). A line that is not JSON, of a newer version, or not a valid
 * record fails in one line naming `name` and the line number.
 */
export function parseEpisodeRecords(text: string, name: string): EpisodeRecord[] {
  return parseJsonLines(text, name, (value, where) =>
    withoutVersion(parseVersioned(value, episodeRecordFormat, where)),
  );
}

/** Reads and checks the `episodes.jsonl` at `path` (see `parseEpisodeRecords`). */
export function readEpisodeRecords(path: string): EpisodeRecord[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new DatasetError(
      'DATASET_INVALID',
      `${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  return parseEpisodeRecords(text, path);
}
