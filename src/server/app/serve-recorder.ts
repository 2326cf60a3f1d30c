import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { RunRecorder } from '../run-recorder.js';
import type { EndedEpisode, SessionTransport } from '../session/episode-tracker.js';
import {
  runConfigKey,
  type ServerEnvDefaults,
  type SessionRegistries,
  sessionRunConfig,
} from '../session/session-config.js';

/** Options of {@link ServeRecorder}. */
export interface ServeRecorderOptions {
  /** Add to run directories that already hold episodes (else they are refused at start). */
  readonly append?: boolean;
  readonly defaults: ServerEnvDefaults;
  readonly registries: SessionRegistries;
  /** Told when an episode could not be written (one line); default: standard error. */
  readonly onError?: (message: string) => void;
}

interface RunDirectory {
  readonly recorder: RunRecorder;
  readonly transports: Set<SessionTransport>;
}

/** `demo/sql` → `demo-sql`, as `intercode run` names its run directories. */
export function datasetSlug(datasetId: string): string {
  return datasetId.replace(/^.*\//, (match) => match.replaceAll('/', '-')).replace(/[^\w.-]+/g, '-');
}

/**
 * The run directories of `intercode serve --out DIR`: one per dataset and configuration,
 * `DIR/<dataset-slug>` plus `-<setting>` for each setting that differs from the server's default
 * (`-mysql`, `-docker`, `-5turns`), each an `episodes.jsonl` and a `summary.json` that
 * `intercode report` reads. Episodes are appended as they end; the summaries say `complete: true`
 * once {@link close} ran (at shutdown).
 */
export class ServeRecorder {
  readonly outDir: string;
  readonly #options: ServeRecorderOptions;
  readonly #byKey = new Map<string, RunDirectory>();
  readonly #names = new Set<string>();
  #closed = false;

  /** Refuses (UsageError, one line) a DIR whose run directories hold episodes, unless `append`. */
  constructor(outDir: string, options: ServeRecorderOptions) {
    this.outDir = outDir;
    this.#options = options;
    if (existsSync(outDir) && !statSync(outDir).isDirectory())
      throw new UsageError(`--out: ${outDir} is not a directory`);
    if (!options.append && existsSync(outDir)) {
      for (const name of readdirSync(outDir).sort()) {
        const log = join(outDir, name, 'episodes.jsonl');
        if (existsSync(log) && statSync(log).size > 0) {
          throw new UsageError(
            `--out: ${join(outDir, name)} already holds episodes: pass --append to add to them, or choose another directory`,
          );
        }
      }
    }
  }

  /** Writes an ended episode to its run directory (made at its first episode). */
  record(ended: EndedEpisode): void {
    if (this.#closed) return;
    try {
      const directory = this.#directoryOf(ended);
      if (!directory.transports.has(ended.transport)) {
        directory.transports.add(ended.transport);
        directory.recorder.describe({ agent: agentName(directory.transports) });
      }
      directory.recorder.append(ended.record);
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      const report = this.#options.onError ?? ((line: string) => process.stderr.write(`${line}\n`));
      report(`intercode serve: episode of ${ended.record.taskId} not recorded: ${message}`);
    }
  }

  /** The run directories written so far. */
  get directories(): string[] {
    return [...this.#byKey.values()].map((directory) => directory.recorder.outDir);
  }

  /** Rewrites every summary with `complete: true` and closes the logs. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const directory of this.#byKey.values()) directory.recorder.close();
  }

  #directoryOf(ended: EndedEpisode): RunDirectory {
    const key = `${runConfigKey(ended.config)} ${ended.maxTurns}`;
    const known = this.#byKey.get(key);
    if (known) return known;
    const base = this.#nameOf(ended);
    let name = base;
    for (let n = 2; this.#names.has(name); n += 1) name = `${base}-${n}`;
    const transports = new Set<SessionTransport>([ended.transport]);
    const recorder = new RunRecorder(
      join(this.outDir, name),
      { ...ended.description, agent: agentName(transports), maxTurns: ended.maxTurns },
      { append: this.#options.append === true },
    );
    this.#names.add(name);
    const directory = { recorder, transports };
    this.#byKey.set(key, directory);
    return directory;
  }

  /** The slug, then each setting the episode's configuration has and the server's default has not. */
  #nameOf(ended: EndedEpisode): string {
    const { defaults, registries } = this.#options;
    const { config } = ended;
    const usual = sessionRunConfig({ dataset: config.dataset }, defaults, registries);
    const differing = [
      config.sql?.engine !== usual.sql?.engine ? config.sql?.engine : undefined,
      config.sandbox?.backend !== usual.sandbox?.backend ? config.sandbox?.backend : undefined,
      config.sandbox?.image !== usual.sandbox?.image ? config.sandbox?.image : undefined,
      config.sandbox?.compat !== usual.sandbox?.compat ? config.sandbox?.compat : undefined,
      config.sandbox?.deterministic === false ? 'nondeterministic' : undefined,
      config.sql?.handicap && !usual.sql?.handicap ? 'handicap' : undefined,
      ended.maxTurns !== defaults.maxTurns ? `${ended.maxTurns}turns` : undefined,
    ].filter((part): part is string => part !== undefined);
    return [datasetSlug(config.dataset), ...differing].join('-').replace(/[^\w.-]+/g, '-');
  }
}

/** `serve:ws`, or `serve:http+ws` for a directory played through several transports. */
function agentName(transports: ReadonlySet<SessionTransport>): string {
  return `serve:${[...transports].sort().join('+')}`;
}
