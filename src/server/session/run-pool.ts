import type { Dataset } from '../../core/task.js';
import type { RunConfig } from '../../harness/run-config.js';
import { type OpenedRun, planRun } from '../../harness/run-plan.js';
import { asSetupValidation, runConfigKey, type SessionRegistries } from './session-config.js';

/**
 * The opened runs sessions make their envs from: one {@link OpenedRun} per distinct configuration,
 * opened on first use (concurrent requests for the same one wait for the same open), kept open while
 * the server runs (a database server or a sandbox provider is shared by every session of it), and
 * closed by {@link closeAll}. A dataset is loaded once, whatever the configurations that use it.
 */
export class RunPool {
  readonly #registries: SessionRegistries;
  readonly #runs = new Map<string, Promise<OpenedRun>>();
  readonly #datasets = new Map<string, Promise<Dataset>>();
  #closed = false;

  constructor(registries: SessionRegistries) {
    this.#registries = registries;
  }

  /** Configurations opened (or being opened). */
  get size(): number {
    return this.#runs.size;
  }

  /**
   * The opened run of `config`. A configuration the run-setup checks refuse is a validation error
   * (`loc` prefixes its path); a failed open is not remembered, so the next request tries again.
   */
  get(config: RunConfig, loc: readonly string[] = []): Promise<OpenedRun> {
    if (this.#closed) return Promise.reject(new Error('the server is shutting down'));
    const key = runConfigKey(config);
    let run = this.#runs.get(key);
    if (!run) {
      run = this.#open(config, loc);
      this.#runs.set(key, run);
      run.catch(() => {
        if (this.#runs.get(key) === run) this.#runs.delete(key);
      });
    }
    return run;
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
    const runs = [...this.#runs.values()];
    this.#runs.clear();
    await Promise.all(
      runs.map(async (pending) => {
        const run = await pending.catch(() => undefined);
        await run?.close();
      }),
    );
  }
}
