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
import { type EpisodeRecord, episodeLine } from '../core/run-files/episode-record-schema.js';
import { parseEpisodeRecords } from '../core/run-files/read-episode-records.js';

/**
 * `episodes.jsonl` of a run directory: one line per finished episode, written and flushed to disk
 * as each ends, so a killed run loses at most the episodes in flight. Each line carries the
 * `schemaVersion` of its format first.
 */
export class EpisodeLog {
  readonly path: string;
  readonly #fd: number;

  private constructor(path: string, fd: number) {
    this.path = path;
    this.#fd = fd;
  }

  /**
   * Opens the log of `directory`. With `resume`, returns the episodes already there, each checked
   * against the record schema (a line that is not a valid record, or of a newer version, fails in
   * one line naming the file and line); a torn last line from a killed run is dropped, and episodes
   * that failed with an infrastructure error are dropped too, so that they are played again.
   * Without `resume`, an existing non-empty log is an error, so no earlier result is ever overwritten.
   */
  /**
   * {@link open} for a run of `dataset`: a resumed log that holds another dataset's episodes (or the
   * same task file spelled differently) is refused, so no task id is played twice in one log.
   */
  static openForRun(
    directory: string,
    resume: boolean,
    dataset: string,
  ): { log: EpisodeLog; previous: EpisodeRecord[] } {
    const opened = EpisodeLog.open(directory, resume);
    const foreign = opened.previous.find((record) => record.dataset !== dataset);
    if (foreign) {
      opened.log.close();
      throw new DatasetError(
        'DATASET_INVALID',
        `${directory} holds episodes of ${foreign.dataset}, not ${dataset}: resume with the same dataset, or choose another --out`,
      );
    }
    return opened;
  }

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
      previous = parseEpisodeRecords(text.slice(0, complete), path);
      if (previous.some((record) => record.error !== undefined)) {
        previous = previous.filter((record) => record.error === undefined);
        writeFileAtomic(path, previous.map(episodeLine).join(''));
      } else {
        const fd = openSync(path, 'r+');
        ftruncateSync(fd, Buffer.byteLength(text.slice(0, complete)));
        closeSync(fd);
      }
    }
    return { log: new EpisodeLog(path, openSync(path, 'a')), previous };
  }

  append(record: EpisodeRecord): void {
    writeSync(this.#fd, episodeLine(record));
    fdatasyncSync(this.#fd);
  }

  close(): void {
    closeSync(this.#fd);
  }
}
