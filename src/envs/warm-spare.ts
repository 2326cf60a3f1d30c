import type { WarmPoolStats } from '../core/env.js';
import type { Sandbox, SandboxProvider, SandboxStats } from '../sandbox/sandbox.js';

const NO_POOL: WarmPoolStats = { idle: 0, memoryBytes: 0, limit: 0 };

/** A pool of `limit` sandboxes, of which those with figures are held idle. */
function pooled(held: readonly SandboxStats[], limit: number): WarmPoolStats {
  return { idle: held.length, memoryBytes: held.reduce((sum, stats) => sum + stats.memoryBytes, 0), limit };
}

/**
 * An env's warm pool (`Env.warmPool`): its own spare's; else, where the provider's sandboxes reset
 * ahead themselves (`SandboxProvider.resetsAhead`), what the env's `sandboxes` hold ready for their
 * next reset (`Sandbox.readyAhead`); else none.
 */
export async function envWarmPool<T>(
  spare: WarmSpare<T> | undefined,
  provider: SandboxProvider,
  sandboxes: readonly Sandbox[],
): Promise<WarmPoolStats> {
  if (spare) return spare.stats();
  if (!provider.resetsAhead || sandboxes.length === 0) return NO_POOL;
  const ready = await Promise.all(sandboxes.map((sandbox) => sandbox.readyAhead?.().catch(() => undefined)));
  return pooled(
    ready.filter((stats) => stats !== undefined),
    sandboxes.length,
  );
}

/** How a warm spare handles its items: a sandbox, or the Bash env's pair of them. */
export interface SpareKind<T> {
  /** The sandboxes one item holds (what `stats` measures). */
  sandboxes(item: T): readonly Sandbox[];
  /** Brings a used item back to the state of one just made; throws when it cannot. */
  renew(item: T): Promise<void>;
  close(item: T): Promise<void>;
}

/** What `swap` needs of the env: which spare fits, and what to do with the item it replaces. */
export interface SpareSwap<T> {
  /** Whether the spare can serve the next episode (one refused is closed). */
  usable(item: T): boolean;
  /** The item the last episode used, if any. */
  readonly used: T | undefined;
  /** Whether `used` can be renewed into the next spare (else it is closed and `make` runs). */
  reusable(item: T): boolean;
  /** Makes a new item. */
  make(): Promise<T>;
}

/**
 * An env's warm pool: one item made ready for the next episode while the current one runs — the
 * last episode's renewed, or a new one. The next reset takes it as it is, so that it waits neither
 * for a renewal nor for a sandbox start. `limit`: the sandboxes one item holds (what `stats`
 * reports as the bound). Nothing is kept once `close` was called: an item that becomes ready after
 * it is closed.
 */
export class WarmSpare<T> {
  readonly #limit: number;
  readonly #kind: SpareKind<T>;
  /** The item being made ready (settles to `undefined` when that failed). */
  #pending: Promise<T | undefined> | undefined;
  /** The item once ready (what `stats` counts as idle). */
  #ready: T | undefined;
  #closed = false;

  constructor(limit: number, kind: SpareKind<T>) {
    this.#limit = limit;
    this.#kind = kind;
  }

  /** Holds the item `make` makes as the spare, closing the one held before (nothing once closed). */
  hold(make: () => Promise<T>): void {
    if (this.#closed) return;
    this.#keep(make());
  }

  /**
   * The spare for the next episode, when one is ready and `usable`; in its place the spare then
   * holds `used` renewed (when `reusable`) or a new item. Undefined when there is none, or the pool
   * was closed meanwhile: the caller makes its own item, then `hold`s the next spare.
   */
  async swap(swap: SpareSwap<T>): Promise<T | undefined> {
    const spare = await this.#take(swap.usable);
    if (!spare) return undefined;
    if (this.#closed) {
      await this.#close(spare);
      return undefined;
    }
    const { used } = swap;
    if (used !== undefined && swap.reusable(used)) {
      this.#keep(this.#renewed(used));
    } else {
      if (used !== undefined) void this.#close(used);
      this.#keep(swap.make());
    }
    return spare;
  }

  /** What is held ready now: its sandboxes and their memory (PSS). */
  async stats(): Promise<WarmPoolStats> {
    const ready = this.#ready;
    if (ready === undefined) return pooled([], this.#limit);
    const sandboxes = this.#kind.sandboxes(ready);
    return pooled(
      await Promise.all(sandboxes.map((sandbox) => sandbox.stats())).catch(() => []),
      this.#limit,
    );
  }

  /** Closes the spare (waiting for one still being made); nothing is held from then on. */
  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#pending;
    this.#pending = undefined;
    this.#ready = undefined;
    const item = await pending;
    if (item !== undefined) await this.#close(item);
  }

  #keep(making: Promise<T>): void {
    const previous = this.#pending;
    this.#ready = undefined;
    const pending: Promise<T | undefined> = making.then(
      async (item) => {
        if (this.#closed || this.#pending !== pending) {
          await this.#close(item);
          return undefined;
        }
        this.#ready = item;
        return item;
      },
      () => undefined,
    );
    this.#pending = pending;
    if (previous) void previous.then((item) => (item === undefined ? undefined : this.#close(item)));
  }

  async #take(usable: (item: T) => boolean): Promise<T | undefined> {
    const pending = this.#pending;
    if (!pending) return undefined;
    const item = await pending;
    if (this.#pending !== pending) return undefined;
    this.#pending = undefined;
    this.#ready = undefined;
    if (item === undefined) return undefined;
    if (usable(item)) return item;
    await this.#close(item);
    return undefined;
  }

  /** `item` renewed; closed when that fails (the spare is then empty). */
  async #renewed(item: T): Promise<T> {
    try {
      await this.#kind.renew(item);
      return item;
    } catch (error) {
      await this.#close(item);
      throw error;
    }
  }

  /** Closes an item, ignoring failures (a sandbox already gone). */
  async #close(item: T): Promise<void> {
    await this.#kind.close(item).catch(() => {});
  }
}
