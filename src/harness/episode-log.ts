import {
  closeSync,
  existsSync,
  fdatasync,
  fdatasyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DatasetError } from '../core/errors.js';
import { writeFileAtomic } from '../core/host/atomic-write.js';
import { episodeLine } from '../core/run-files/episode-line.js';
import type { EpisodeRecord } from '../core/run-files/episode-record-schema.js';

const fdatasyncAsync = promisify(fdatasync);

/** The shortest time between two flushes of {@link EpisodeLog.durable}, ms. */
const GROUP_COMMIT_MS = 20;

/**
 * `episodes.jsonl` of a run directory: one line per finished episode, written as each ends, so a
 * killed run loses at most the episodes in flight, and flushed to disk (`append` at once, `write`
 * with {@link EpisodeLog.durable} in groups), so a lost machine loses at most the last flush's worth.
 * Each line carries the `schemaVersion` of its format first.
 */
export class EpisodeLog {
  readonly path: string;
  readonly #fd: number;
  /** The flush to disk in progress, and the next one, which covers what was written until it starts. */
  #flushing: Promise<void> | undefined;
  #nextFlush: Promise<void> | undefined;
  #lastFlush = Number.NEGATIVE_INFINITY;

  private constructor(path: string, fd: number) {
    this.path = path;
    this.#fd = fd;
  }

  /**
   * {@link open} for a run of `dataset`: a resumed log that holds another dataset's episodes (or the
   * same task file spelled differently) is refused, so no task id is played twice in one log.
   */
  static async openForRun(
    directory: string,
    resume: boolean,
    dataset: string,
  ): Promise<{ log: EpisodeLog; previous: EpisodeRecord[] }> {
    // The record parser (and its schema library) is loaded only to resume.
    const parse = resume
      ? (await import('../core/run-files/read-episode-records.js')).parseEpisodeRecords
      : undefined;
    const opened = EpisodeLog.open(directory, parse);
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

  /**
   * Opens the log of `directory`. With `resume` (the parser of the records there:
   * `parseEpisodeRecords`), returns the episodes already there, each checked against the record
   * schema (a line that is not a valid record, or of a newer version, fails in one line naming the
   * file and line); a torn last line from a killed run is dropped, and episodes that failed with an
   * infrastructure error are dropped too, so that they are played again. Without `resume`, an
   * existing non-empty log is an error, so no earlier result is ever overwritten.
   */
  static open(
    directory: string,
    resume: ((text: string, source: string) => EpisodeRecord[]) | undefined,
  ): { log: EpisodeLog; previous: EpisodeRecord[] } {
    mkdirSync(directory, { recursive: true });
    const path = join(directory, 'episodes.jsonl');
    let previous: EpisodeRecord[] = [];
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8');
      if (text.trim() !== '' && resume === undefined) {
        throw new DatasetError(
          'DATASET_INVALID',
          `${directory} already holds episodes: pass --resume to continue that run, or choose another --out`,
        );
      }
      const complete = text.lastIndexOf('\n') + 1;
      previous = resume ? resume(text.slice(0, complete), path) : [];
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

  /**
   * Appends episodes without waiting for the disk: a killed process loses none of them (the kernel
   * has them), a lost machine may; {@link durable} waits until they are on disk.
   */
  write(records: readonly EpisodeRecord[]): void {
    if (records.length > 0) writeSync(this.#fd, records.map(episodeLine).join(''));
  }

  /**
   * Resolves once everything written before the call is on disk. Flushes run off the event loop,
   * one at a time and at most one per GROUP_COMMIT_MS: the calls made meanwhile share the next (a
   * group commit, so a fast stream of results costs a few flushes a second, and a slow one waits for
   * none).
   */
  durable(): Promise<void> {
    this.#nextFlush ??= (async () => {
      // The previous flush's failure is its callers'; this one flushes anew.
      await this.#flushing?.catch(() => {});
      const wait = this.#lastFlush + GROUP_COMMIT_MS - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      // What is written from here on waits for the flush after this one.
      this.#nextFlush = undefined;
      this.#lastFlush = performance.now();
      this.#flushing = fdatasyncAsync(this.#fd);
      await this.#flushing;
    })();
    return this.#nextFlush;
  }

  /** Closes the file; wait for {@link durable} first when anything was written without it. */
  close(): void {
    closeSync(this.#fd);
  }
}
