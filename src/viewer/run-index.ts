import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { episodeRecordFormat } from '../core/run-files/episode-record-schema.js';
import { parseEpisodeRecords } from '../core/run-files/read-episode-records.js';
import { parseVersioned } from '../core/run-files/versioned-format.js';
import type { EpisodeRecord } from '../harness/episode-record.js';
import { settingLine } from '../harness/report-format.js';
import { readRunSummary } from '../harness/run-files/read-run-summary.js';
import type { RunSummary } from '../harness/run-files/run-summary-schema.js';
import { runReport } from '../harness/run-report.js';
import { rewardBins, successByTurn } from './run-charts.js';
import type { EpisodeRow, EpisodeStatus, RunInfo, SkippedLine } from './viewer-api.js';

/** Where an episode's line is in `episodes.jsonl`, and what the lists need of it. */
export interface IndexedEpisode {
  readonly row: EpisodeRow;
  /** The record without its turns' texts (metrics need only rewards and admissibility). */
  readonly light: EpisodeRecord;
  readonly offset: number;
  readonly length: number;
}

/** How many skipped lines keep their reason (the count goes on). */
const SKIPPED_KEPT = 20;
/** Bytes read at a time when new lines arrive (a whole run's file at once, up to this). */
const CHUNK = 64 * 1024 * 1024;
/** Text searches whose answers are kept. */
const SEARCHES_KEPT = 8;
/** Characters of a query a list row carries. */
const ROW_QUERY = 240;

function statusOf(record: EpisodeRecord): EpisodeStatus {
  if (record.error !== undefined) return 'error';
  if (record.success) return 'solved';
  return record.truncated ? 'truncated' : 'failed';
}

/** A short name of a run directory for columns and legends: its last two parts. */
function shortName(directory: string): string {
  const parent = basename(dirname(directory));
  return parent && parent !== '/' && parent !== '.'
    ? `${parent}/${basename(directory)}`
    : basename(directory);
}

/**
 * A run directory as the viewer reads it: `episodes.jsonl` indexed line by line (byte offsets, a
 * list row and a light copy of each valid record; texts are read again from the file when an
 * episode is opened or searched), read on from where it stopped each time `refresh` finds the file
 * longer, so a run still writing shows its new episodes. A line that is not JSON, not a valid record
 * or of a newer schema is skipped and counted; a last line without its newline (a run killed while
 * writing) counts as skipped until it is completed.
 */
export class RunIndex {
  readonly directory: string;
  readonly #episodesPath: string;
  readonly #summaryPath: string;
  readonly #episodes: IndexedEpisode[] = [];
  readonly #skippedLines: SkippedLine[] = [];
  #skipped = 0;
  /** Bytes of `episodes.jsonl` read, through the last complete line. */
  #consumed = 0;
  #lines = 0;
  /** A last line without its newline, when the file ends so. */
  #tornTail = false;
  #summary: RunSummary | undefined;
  #summaryStamp = '';
  #version = 0;
  #info: RunInfo | undefined;
  /** Recent text searches by lower-cased text: the ids found among the first `scanned` episodes. */
  readonly #searches = new Map<string, { found: Set<number>; scanned: number }>();

  constructor(
    readonly id: number,
    directory: string,
  ) {
    this.directory = resolve(directory);
    this.#episodesPath = join(this.directory, 'episodes.jsonl');
    this.#summaryPath = join(this.directory, 'summary.json');
    if (!existsSync(this.#episodesPath)) {
      throw new UsageError(`${directory} is not a run directory (no episodes.jsonl)`);
    }
    this.refresh();
  }

  get episodes(): readonly IndexedEpisode[] {
    return this.#episodes;
  }

  get version(): number {
    return this.#version;
  }

  /** Reads what was appended since the last call (and `summary.json` if it changed); true when anything did. */
  refresh(): boolean {
    const changed = this.#readSummary();
    const grew = this.#readEpisodes();
    if (changed || grew) {
      this.#version += 1;
      this.#info = undefined;
    }
    return changed || grew;
  }

  #readSummary(): boolean {
    let stamp = '';
    try {
      const stat = statSync(this.#summaryPath);
      stamp = `${stat.mtimeMs}:${stat.size}`;
    } catch {
      stamp = '';
    }
    if (stamp === this.#summaryStamp) return false;
    this.#summaryStamp = stamp;
    try {
      this.#summary = stamp === '' ? undefined : readRunSummary(this.#summaryPath);
    } catch {
      // A summary being written, or of a newer version: the episodes alone say what the page shows.
      this.#summary = undefined;
    }
    return true;
  }

  #readEpisodes(): boolean {
    const fd = openSync(this.#episodesPath, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size < this.#consumed) this.#restart();
      let grew = false;
      let pending = Buffer.alloc(0);
      let position = this.#consumed;
      while (position < size) {
        const chunk = Buffer.allocUnsafe(Math.min(CHUNK, size - position));
        const read = readSync(fd, chunk, 0, chunk.length, position);
        if (read === 0) break;
        position += read;
        const data =
          pending.length > 0 ? Buffer.concat([pending, chunk.subarray(0, read)]) : chunk.subarray(0, read);
        let start = 0;
        for (let end = data.indexOf(10, start); end !== -1; end = data.indexOf(10, start)) {
          this.#addLine(data.subarray(start, end), this.#consumed);
          this.#consumed += end - start + 1;
          start = end + 1;
          grew = true;
        }
        // Only a line cut by the chunk's end is copied, to be joined with the next chunk.
        pending = start < data.length ? Buffer.from(data.subarray(start)) : Buffer.alloc(0);
      }
      const torn = pending.length > 0 && pending.toString('utf8').trim() !== '';
      if (torn !== this.#tornTail) grew = true;
      this.#tornTail = torn;
      return grew;
    } finally {
      closeSync(fd);
    }
  }

  /** The file was replaced by a shorter one (a new run in the same folder): read it from the start. */
  #restart(): void {
    this.#episodes.length = 0;
    this.#searches.clear();
    this.#skippedLines.length = 0;
    this.#skipped = 0;
    this.#consumed = 0;
    this.#lines = 0;
  }

  #skip(reason: string): void {
    this.#skipped += 1;
    if (this.#skippedLines.length < SKIPPED_KEPT) this.#skippedLines.push({ line: this.#lines, reason });
  }

  #addLine(bytes: Buffer, offset: number): void {
    this.#lines += 1;
    const text = bytes.toString('utf8');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#skip('not valid JSON');
      return;
    }
    let record: EpisodeRecord;
    try {
      record = parseVersioned(value, episodeRecordFormat, `line ${this.#lines}`);
    } catch (error) {
      this.#skip((error as Error).message.replace(/^line \d+ /, ''));
      return;
    }
    const id = this.#episodes.length;
    const usage = record.usage;
    const row: EpisodeRow = {
      id,
      taskId: record.taskId,
      index: record.index,
      sample: record.sample ?? 0,
      group: record.group ?? 'all',
      query: record.query.slice(0, ROW_QUERY),
      status: statusOf(record),
      reward: record.maxReward,
      turns: record.turnsTaken,
      tokens: usage ? usage.input + usage.output : 0,
      costUsd: record.costUsd ?? (usage ? null : 0),
      durationMs: record.durationMs,
      goldCorrupt: record.goldCorrupt === true,
    };
    const light: EpisodeRecord = {
      ...record,
      query: row.query,
      gold: undefined,
      turns: record.turns.map((turn) => ({
        action: '',
        observation: '',
        reward: turn.reward,
        admissible: turn.admissible,
        durationMs: 0,
      })),
    };
    this.#episodes.push({ row, light, offset, length: bytes.length });
  }

  /** The whole record of episode `id` (read from the file), or undefined when there is none. */
  record(id: number): EpisodeRecord | undefined {
    const entry = this.#episodes[id];
    if (entry === undefined) return undefined;
    const [line] = this.#readLines([entry]);
    return line === undefined ? undefined : parseEpisodeRecords(line.text, this.#episodesPath)[0];
  }

  /** The lines of `entries` from the file, in order (one descriptor and one buffer for all). */
  *#readLines(entries: readonly IndexedEpisode[]): Generator<{ entry: IndexedEpisode; text: string }> {
    const fd = openSync(this.#episodesPath, 'r');
    try {
      let buffer = Buffer.allocUnsafe(64 * 1024);
      for (const entry of entries) {
        if (buffer.length < entry.length) buffer = Buffer.allocUnsafe(entry.length);
        readSync(fd, buffer, 0, entry.length, entry.offset);
        yield { entry, text: buffer.toString('utf8', 0, entry.length) };
      }
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The ids of the episodes whose query, actions, observations or model outputs contain `text`
   * (case-insensitive). The answer for the last few texts is kept and only extended by the episodes
   * read since, so the pages of one search (and an episode's neighbours in it) read the file once.
   */
  matching(text: string): ReadonlySet<number> {
    const needle = text.toLowerCase();
    let search = this.#searches.get(needle);
    if (search === undefined) {
      search = { found: new Set(), scanned: 0 };
      if (this.#searches.size >= SEARCHES_KEPT) this.#searches.delete(this.#searches.keys().next().value!);
      this.#searches.set(needle, search);
    }
    if (search.scanned < this.#episodes.length) {
      const fresh = this.#episodes.slice(search.scanned);
      for (const id of searchLines(needle, this.#readLines(fresh))) search.found.add(id);
      search.scanned = this.#episodes.length;
    }
    return search.found;
  }

  /** The run's figures, plots' data and reading state (recomputed only after new lines). */
  info(): RunInfo {
    if (this.#info) return this.#info;
    const light = this.#episodes.map((entry) => entry.light);
    const report = runReport({ directory: this.directory, episodes: light, summary: this.#summary });
    const tail: SkippedLine[] = this.#tornTail
      ? [{ line: this.#lines + 1, reason: 'the last line is incomplete (a run stopped while writing it?)' }]
      : [];
    this.#info = {
      id: this.id,
      directory: this.directory,
      name: shortName(this.directory),
      setting: report.setting,
      settingText: settingLine(report.setting),
      overall: report.overall,
      byGroup: report.byGroup,
      paper: report.paper,
      successByTurn: successByTurn(light, this.#summary?.maxTurns),
      rewardBins: rewardBins(light),
      episodes: this.#episodes.length,
      skipped: this.#skipped + tail.length,
      skippedLines: [...this.#skippedLines, ...tail].slice(0, SKIPPED_KEPT + 1),
      complete: this.#summary?.complete === true,
      version: this.#version,
    };
    return this.#info;
  }
}

/** The ids of the lines whose texts contain `needle` (lower-cased). */
function* searchLines(
  needle: string,
  lines: Iterable<{ entry: IndexedEpisode; text: string }>,
): Generator<number> {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes these characters.
  const escapable = /["\\\u0000-\u001f]/.test(needle);
  for (const { entry, text } of lines) {
    // The raw line holds every text, escaped only where the needle has a character JSON escapes:
    // without one, a line that does not hold the needle is ruled out unparsed.
    if (!escapable && !text.toLowerCase().includes(needle)) continue;
    const record = JSON.parse(text) as EpisodeRecord;
    const texts = [record.query, ...record.turns.flatMap((turn) => textsOfTurn(turn))];
    if (texts.some((value) => value.toLowerCase().includes(needle))) yield entry.row.id;
  }
}

/** The texts of a turn a search looks in: action, observation, the model's outputs and reasoning. */
function textsOfTurn(turn: EpisodeRecord['turns'][number]): string[] {
  const calls = turn.llm?.calls ?? [];
  return [
    turn.action,
    turn.observation,
    ...calls.flatMap((call) => [call.output, call.reasoning ?? '']),
    turn.llm?.thought ?? '',
  ];
}
