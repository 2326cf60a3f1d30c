import type { SandboxEnvOptions } from './sandbox-env-options.js';

/** Bytes all the results of one env kind's cache may hold together (see {@link GoldCache}). */
const DEFAULT_BUDGET_BYTES = 64 * 2 ** 20;

/**
 * The gold's results of the tasks a process has played, for envs that run the gold in an
 * evaluation sandbox at each reset (Bash, Python): a task played again (`--samples`, training
 * epochs, a server's sessions) reuses its first gold run instead of running it again, and
 * episodes of the same task that start together (a group rollout) share one run. The key names
 * everything the result depends on (backend, image, file system, limits, the gold's text). A result
 * is kept for later episodes only when `keep` allows it (a gold that failed, by a time limit or a
 * scorer bound, runs again next time: the failure may be the machine's load); a run that throws
 * is neither kept nor shared (who waited on it runs its own). Least recently used results go first
 * once their estimated size passes the budget.
 */
export class GoldCache<T> {
  readonly #budget: number;
  readonly #entries = new Map<string, { readonly value: T; readonly bytes: number }>();
  /** Runs under way, which episodes of the same key that start meanwhile wait for. */
  readonly #running = new Map<string, Promise<T>>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;

  constructor(budgetBytes = DEFAULT_BUDGET_BYTES) {
    this.#budget = budgetBytes;
  }

  /**
   * The gold's result for `key`: the one kept (now the most recently used), else that of the run
   * under way for it, else `run()`'s, kept when `keep` says so. A shared run that throws is
   * replaced by one of the caller's own.
   */
  share(key: string, run: () => Promise<T>, keep: (value: T) => boolean): Promise<T> {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#hits += 1;
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      return Promise.resolve(entry.value);
    }
    const running = this.#running.get(key);
    if (running) {
      this.#hits += 1;
      return running.catch(() => this.share(key, run, keep));
    }
    this.#misses += 1;
    const result = run();
    this.#running.set(key, result);
    const done = () => {
      if (this.#running.get(key) === result) this.#running.delete(key);
    };
    result.then((value) => {
      done();
      if (keep(value)) this.#set(key, value, JSON.stringify(value).length * 2);
    }, done);
    return result;
  }

  /** Keeps `value` (`bytes`: its estimated size; one larger than the budget is not kept). */
  #set(key: string, value: T, bytes: number): void {
    const size = Math.max(0, bytes) + key.length;
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#bytes -= old.bytes;
    }
    if (size > this.#budget) return;
    this.#entries.set(key, { value, bytes: size });
    this.#bytes += size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.#budget) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }

  /**
   * How many results are kept and their estimated bytes; the lookups that found a result kept or
   * under way (`hits`) or started a run (`misses`).
   */
  stats(): { entries: number; bytes: number; hits: number; misses: number } {
    return { entries: this.#entries.size, bytes: this.#bytes, hits: this.#hits, misses: this.#misses };
  }
}

/**
 * Whether an env of these options reuses a task's gold run: `goldCache`, by default on in
 * deterministic mode only (where the gold's clock, host name and file times are pinned, so that a
 * second run would print the same), and never with `INTERCODE_GOLD_CACHE=off`.
 */
export function goldCacheEnabled(options: Pick<SandboxEnvOptions, 'goldCache' | 'deterministic'>): boolean {
  if (process.env.INTERCODE_GOLD_CACHE === 'off') return false;
  return options.goldCache ?? options.deterministic !== undefined;
}
