import type { Dataset } from '../../core/task.js';
import type { RunConfig } from '../../harness/run-config.js';
import { type OpenedRun, planRun } from '../../harness/run-plan.js';
import { asSetupValidation, runConfigKey, type SessionRegistries } from './session-config.js';

/** A run in use: `release` once its env is closed. */
export interface RunLease {
  readonly run: OpenedRun;
  release(): void;
}

interface Entry {
  readonly run: Promise<OpenedRun>;
  refs: number;
  pinned: boolean;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The opened runs sessions make their envs from: one {@link OpenedRun} per distinct configuration,
 * opened on first use (concurrent requests for the same one wait for the same open) and shared by
 * every session of it (a database server, a sandbox provider). A run no session holds is closed after
 * `unusedRunKeepMs`, except the pinned one (the server's default configuration), so that clients
 * choosing other configurations cannot pile up database servers; {@link closeAll} closes the rest.
 * A dataset is loaded once, whatever the configurations that use it.
 */
export class RunPool {
  readonly #registries: SessionRegistries;
  readonly #keepMs: number;
  readonly #runs = new Map<string, Entry>();
  readonly #datasets = new Map<string, Promise<Dataset>>();
  readonly #closing = new Set<Promise<void>>();
  #closed = false;

  constructor(registries: SessionRegistries, options: { unusedRunKeepMs?: number } = {}) {
    this.#registries = registries;
    this.#keepMs = options.unusedRunKeepMs ?? 60_000;
  }

  /** Configurations opened (or being opened). */
  get size(): number {
    return this.#runs.size;
  }

  /**
   * The opened run of `config`, held until `release()`. A configuration the run-setup checks refuse
   * is a validation error (`loc` prefixes its path); a failed open is not remembered.
   */
  async acquire(config: RunConfig, loc: readonly string[] = []): Promise<RunLease> {
    if (this.#closed) throw new Error('the server is shutting down');
    const key = runConfigKey(config);
    let entry = this.#runs.get(key);
    if (!entry) {
      const run = this.#open(config, loc);
      const created: Entry = { run, refs: 0, pinned: false, timer: undefined };
      entry = created;
      this.#runs.set(key, created);
      run.catch(() => {
        if (this.#runs.get(key) === created) this.#runs.delete(key);
      });
    }
    const held = entry;
    held.refs += 1;
    clearTimeout(held.timer);
    held.timer = undefined;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      held.refs -= 1;
      if (held.refs === 0 && !held.pinned && !this.#closed) {
        held.timer = setTimeout(() => this.#evict(key, held), this.#keepMs);
        held.timer.unref();
      }
    };
    try {
      return { run: await held.run, release };
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Opens (if needed) the run of `config` without holding it: a check that the configuration works. */
  async get(config: RunConfig, loc: readonly string[] = []): Promise<OpenedRun> {
    const lease = await this.acquire(config, loc);
    lease.release();
    return lease.run;
  }

  /** Opens the run of `config` and keeps it open until {@link closeAll} (the server's default). */
  async pin(config: RunConfig, loc: readonly string[] = []): Promise<OpenedRun> {
    const lease = await this.acquire(config, loc);
    const entry = this.#runs.get(runConfigKey(config));
    if (entry) entry.pinned = true;
    lease.release();
    return lease.run;
  }

  #evict(key: string, entry: Entry): void {
    if (this.#runs.get(key) !== entry || entry.refs > 0 || entry.pinned) return;
    this.#runs.delete(key);
    const closing: Promise<void> = entry.run
      .then((run) => run.close())
      .catch(() => undefined)
      .finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
  }

  async #open(config: RunConfig, loc: readonly string[]): Promise<OpenedRun> {
    let plan: Awaited<ReturnType<typeof planRun>>;
    try {
      plan = await planRun(config, this.#registries);
    } catch (error) {
      throw asSetupValidation(error, loc);
    }
    const dataset = this.#dataset(config.dataset, () => plan.loadDataset());
    const run = await plan.open(await dataset);
    if (this.#closed) {
      await run.close();
      throw new Error('the server is shutting down');
    }
    return run;
  }

  /** A registered dataset, loaded once (the task listing and every run of it share it). */
  loadDataset(id: string): Promise<Dataset> {
    return this.#dataset(id, () => this.#registries.datasets.get(id).load());
  }

  #dataset(id: string, load: () => Promise<Dataset>): Promise<Dataset> {
    let dataset = this.#datasets.get(id);
    if (!dataset) {
      const loading = load();
      dataset = loading;
      this.#datasets.set(id, loading);
      loading.catch(() => {
        if (this.#datasets.get(id) === loading) this.#datasets.delete(id);
      });
    }
    return dataset;
  }

  /** Closes every opened run (database servers stopped, sandbox providers closed). Idempotent. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#runs.values()];
    this.#runs.clear();
    await Promise.all(
      entries.map(async (entry) => {
        clearTimeout(entry.timer);
        const run = await entry.run.catch(() => undefined);
        await run?.close();
      }),
    );
    while (this.#closing.size > 0) await Promise.all([...this.#closing]);
  }
}
