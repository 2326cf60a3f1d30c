import {
  closeSync,
  existsSync,
  fdatasyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { DatasetError } from '../core/errors.js';
import { writeFileAtomic } from '../core/host/atomic-write.js';
import type { EpisodeRecord } from './episode-record.js';

/**
 * `episodes.jsonl` of a run directory: one line per finished episode, written and flushed to disk
 * as each ends, so a killed run loses at most the episodes in flight.
 */
export class EpisodeLog {
  readonly path: string;
  readonly #fd: number;

  private constructor(path: string, fd: number) {
    this.path = path;
    this.#fd = fd;
  }

  /**
   * Opens the log of `directory`. With `resume`, returns the episodes already there (a torn last
   * line from a killed run is dropped, and episodes that failed with an infrastructure error are
   * dropped too, so that they are played again); without it, an existing non-empty log is an
   * error, so no earlier result is ever overwritten.
   */
  static open(directory: string, resume: boolean): { log: EpisodeLog; previous: EpisodeRecord[] } {
    mkdirSync(directory, { recursive: true });
    const path = join(directory, 'episodes.jsonl');
    let previous: EpisodeRecord[] = [];
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8');
      if (text.trim() !== '' && !resume) {
        throw new DatasetError(
          'DATASET_INVALID',
          `${directory} already holds episodes: pass --resume to continue that run, or choose another --out`,
        );
      }
      const complete = text.lastIndexOf('\n') + 1;
      previous = text
        .slice(0, complete)
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line, number) => {
          try {
            return JSON.parse(line) as EpisodeRecord;
          } catch {
            throw new DatasetError('DATASET_INVALID', `${path}: line ${number + 1} is not valid JSON`);
          }
        });
      if (previous.some((record) => record.error !== undefined)) {
        previous = previous.filter((record) => record.error === undefined);
        writeFileAtomic(path, previous.map((record) => `${JSON.stringify(record)}\n`).join(''));
      } else {
        const fd = openSync(path, 'r+');
        ftruncateSync(fd, Buffer.byteLength(text.slice(0, complete)));
        closeSync(fd);
      }
    }
    return { log: new EpisodeLog(path, openSync(path, 'a')), previous };
  }

  append(record: EpisodeRecord): void {
    writeSync(this.#fd, `${JSON.stringify(record)}\n`);
    fdatasyncSync(this.#fd);
  }

  close(): void {
    closeSync(this.#fd);
  }
}
