import { join } from 'node:path';
import { writeFileAtomic } from '../core/host/atomic-write.js';
import { EpisodeLog } from '../harness/episode-log.js';
import { type EpisodeRecord, parseEpisodeRecords } from '../harness/episode-record.js';
import { type RunDescription, summarize } from '../harness/run-summary.js';

/**
 * The run directory of episodes played from outside (an MCP client): `episodes.jsonl` through the
 * harness's {@link EpisodeLog} and `summary.json` through {@link summarize}, as `intercode run`
 * writes them. The summary is rewritten within a second of each new episode (at most once a
 * second: a server that plays thousands of episodes must not re-summarise them all, with an fsync,
 * after each), so a killed process leaves a directory `intercode report` reads (its episodes are all
 * in `episodes.jsonl` at once); it says `complete: true` once the recorder is closed.
 */
export class RunRecorder {
  readonly outDir: string;
  readonly #log: EpisodeLog;
  readonly #episodes: EpisodeRecord[] = [];
  readonly #started = performance.now();
  #description: RunDescription;
  #closed = false;
  /** The pending rewrite of the summary, when one is due. */
  #summaryTimer: NodeJS.Timeout | undefined;

  /**
   * Opens `outDir` and writes its summary. An existing non-empty `episodes.jsonl` there is refused,
   * unless `append`: its episodes are then kept (those that failed with an infrastructure error are
   * dropped, as `--resume` does), counted in the summary, and new ones appended after them.
   */
  constructor(outDir: string, description: RunDescription, options: { readonly append?: boolean } = {}) {
    this.outDir = outDir;
    this.#description = description;
    const { log, previous } = EpisodeLog.open(
      outDir,
      options.append === true ? parseEpisodeRecords : undefined,
    );
    this.#log = log;
    this.#episodes.push(...previous);
    this.#writeSummary(false);
  }

  /** Changes fields of the summary's description (rewritten now). */
  describe(fields: Partial<RunDescription>): void {
    this.#description = { ...this.#description, ...fields };
    this.#summaryDue();
  }

  /** The MCP client's name joins the description (as `model: mcp:<name>@<version>`). */
  setClient(client: { readonly name: string; readonly version: string }): void {
    this.describe({ model: `mcp:${client.name}@${client.version}` });
  }

  /** Appends a finished episode (flushed to disk); the summary follows within a second. */
  append(record: EpisodeRecord): void {
    if (this.#closed) return;
    this.#log.append(record);
    this.#episodes.push(record);
    this.#summaryDue();
  }

  /** Writes the summary now if a rewrite is due (tests, a caller about to read the directory). */
  flush(): void {
    if (this.#summaryTimer === undefined || this.#closed) return;
    clearTimeout(this.#summaryTimer);
    this.#summaryTimer = undefined;
    this.#writeSummary(false);
  }

  get episodes(): readonly EpisodeRecord[] {
    return this.#episodes;
  }

  /** Writes the final summary and closes the log. Idempotent. */
  close(): void {
    if (this.#closed) return;
    clearTimeout(this.#summaryTimer);
    this.#summaryTimer = undefined;
    this.#writeSummary(true);
    this.#closed = true;
    this.#log.close();
  }

  #summaryDue(): void {
    if (this.#closed || this.#summaryTimer !== undefined) return;
    this.#summaryTimer = setTimeout(() => {
      this.#summaryTimer = undefined;
      if (!this.#closed) this.#writeSummary(false);
    }, SUMMARY_INTERVAL_MS);
    this.#summaryTimer.unref();
  }

  #writeSummary(complete: boolean): void {
    const summary = summarize(this.#description, this.#episodes, performance.now() - this.#started, complete);
    writeFileAtomic(join(this.outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  }
}

/** At most one rewrite of `summary.json` a second while episodes arrive. */
const SUMMARY_INTERVAL_MS = 1_000;
