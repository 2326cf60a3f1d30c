import type { WarmPoolStats } from '../core/env.js';
import type { Sandbox } from '../sandbox/sandbox.js';

/** What a warm spare holds: one or more sandboxes made ready together, closed together. */
export interface SpareItem {
  readonly sandboxes: readonly Sandbox[];
  close(): Promise<void>;
}

/**
 * An env's warm pool: one item (a sandbox, or the Bash env's pair of them) made ready for the next
 * episode while the current one runs — the last episode's renewed, or a new one. The next reset
 * takes it as it is, so that it waits neither for a renewal nor for a sandbox start. `limit`: the
 * sandboxes one item holds (what `stats` reports as the bound).
 */
export class WarmSpare<T extends SpareItem> {
  readonly #limit: number;
  /** The item being made ready (settles to `undefined` when that failed). */
  #pending: Promise<T | undefined> | undefined;
  /** The item once ready (what `stats` counts as idle). */
  #ready: T | undefined;
  #closed = false;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Holds the item `making` makes ready as the spare, closing the one held before. */
  hold(making: Promise<T | undefined>): void {
    const previous = this.#pending;
    this.#ready = undefined;
    const pending: Promise<T | undefined> = making.then(
      async (item) => {
        if (item && (this.#closed || this.#pending !== pending)) {
          await item.close().catch(() => {});
          return undefined;
        }
        this.#ready = item;
        return item;
      },
      () => undefined,
    );
    this.#pending = pending;
    if (previous) void previous.then((item) => item?.close().catch(() => {}));
  }

  /**
   * The spare, once ready, when `usable` accepts it; one it refuses is closed. Undefined when there
   * is none (the caller makes or renews one itself, then `hold`s the next).
   */
  async take(usable: (item: T) => boolean): Promise<T | undefined> {
    const pending = this.#pending;
    if (!pending) return undefined;
    const item = await pending;
    if (this.#pending !== pending) return undefined;
    this.#pending = undefined;
    this.#ready = undefined;
    if (!item) return undefined;
    if (usable(item)) return item;
    await item.close().catch(() => {});
    return undefined;
  }

  /** What is held ready now: its sandboxes and their memory (PSS). */
  async stats(): Promise<WarmPoolStats> {
    const ready = this.#ready;
    if (!ready) return { idle: 0, memoryBytes: 0, limit: this.#limit };
    const stats = await Promise.all(ready.sandboxes.map((sandbox) => sandbox.stats())).catch(() => []);
    const memoryBytes = stats.reduce((sum, each) => sum + each.memoryBytes, 0);
    return { idle: stats.length, memoryBytes, limit: this.#limit };
  }

  /** Closes the spare (waiting for one still being made); nothing is held from then on. */
  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#pending;
    this.#pending = undefined;
    this.#ready = undefined;
    const item = await pending;
    await item?.close().catch(() => {});
  }
}
