import { join } from 'node:path';
import { writeFileAtomic } from '../core/host/atomic-write.js';
import { EpisodeLog } from '../harness/episode-log.js';
import type { EpisodeRecord } from '../harness/episode-record.js';
import { type RunDescription, summarize } from '../harness/run-summary.js';

/**
 * The run directory of episodes played from outside (an MCP client): `episodes.jsonl` through the
 * harness's {@link EpisodeLog} and `summary.json` through {@link summarize}, as `intercode run`
 * writes them. The summary is rewritten after every episode, so a killed process leaves a
 * directory `intercode report` reads; it says `complete: true` once the recorder is closed.
 */
export class RunRecorder {
  readonly outDir: string;
  readonly #log: EpisodeLog;
  readonly #episodes: EpisodeRecord[] = [];
  readonly #started = performance.now();
  #description: RunDescription;
  #closed = false;

  /**
   * Opens `outDir` and writes its summary. An existing non-empty `episodes.jsonl` there is refused,
   * unless `append`: its episodes are then kept (those that failed with an infrastructure error are
   * dropped, as `--resume` does), counted in the summary, and new ones appended after them.
   */
  constructor(outDir: string, description: RunDescription, options: { readonly append?: boolean } = {}) {
    this.outDir = outDir;
    this.#description = description;
    const { log, previous } = EpisodeLog.open(outDir, options.append === true);
    this.#log = log;
    this.#episodes.push(...previous);
    this.#writeSummary(false);
  }

  /** Changes fields of the summary's description (rewritten now). */
  describe(fields: Partial<RunDescription>): void {
    this.#description = { ...this.#description, ...fields };
    if (!this.#closed) this.#writeSummary(false);
  }

  /** The MCP client's name joins the description (as `model: mcp:<name>@<version>`). */
  setClient(client: { readonly name: string; readonly version: string }): void {
    this.describe({ model: `mcp:${client.name}@${client.version}` });
  }

  /** Appends a finished episode (flushed to disk) and rewrites the summary. */
  append(record: EpisodeRecord): void {
    if (this.#closed) return;
    this.#log.append(record);
    this.#episodes.push(record);
    this.#writeSummary(false);
  }

  get episodes(): readonly EpisodeRecord[] {
    return this.#episodes;
  }

  /** Writes the final summary and closes the log. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#writeSummary(true);
    this.#closed = true;
    this.#log.close();
  }

  #writeSummary(complete: boolean): void {
    const summary = summarize(this.#description, this.#episodes, performance.now() - this.#started, complete);
    writeFileAtomic(join(this.outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  }
}
