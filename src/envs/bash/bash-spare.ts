import type { WarmPoolStats } from '../../core/env.js';
import { type BashBoxes, closeBashBoxes, type FullBashBoxes, sameLayers } from './bash-boxes.js';

/** Sandboxes a spare pair holds: the agent's and the evaluator's. */
const PAIR = 2;

/**
 * The Bash env's warm pool: one pair of sandboxes (agent and evaluator) made ready for the next
 * episode while the current one runs — the last episode's pair renewed (its file system back to the
 * task's, every process ended, a new shell started in each), or a new pair. The next reset takes it
 * as it is, so that it waits neither for the renewal nor for a sandbox start.
 */
export class BashSpare {
  /** The pair being made ready (settles to `undefined` when that failed). */
  #pending: Promise<FullBashBoxes | undefined> | undefined;
  /** The pair once ready (what `stats` counts as idle). */
  #ready: FullBashBoxes | undefined;
  #closed = false;

  /** Holds the pair `making` makes ready as the spare, closing the one held before. */
  hold(making: Promise<FullBashBoxes | undefined>): void {
    const previous = this.#pending;
    this.#ready = undefined;
    const pending = making.then(
      async (boxes) => {
        if (boxes && (this.#closed || this.#pending !== pending)) {
          await closeBashBoxes(boxes).catch(() => {});
          return undefined;
        }
        this.#ready = boxes;
        return boxes;
      },
      () => undefined,
    );
    this.#pending = pending;
    if (previous) void previous.then((boxes) => boxes && closeBashBoxes(boxes).catch(() => {}));
  }

  /**
   * The spare, once ready, when it runs on `layers`; one on other layers is closed. Undefined when
   * there is none (the caller opens or renews a pair itself, then `hold`s the next).
   */
  async take(layers: readonly string[]): Promise<FullBashBoxes | undefined> {
    const pending = this.#pending;
    if (!pending) return undefined;
    const boxes = await pending;
    if (this.#pending !== pending) return undefined;
    this.#pending = undefined;
    this.#ready = undefined;
    if (!boxes) return undefined;
    if (sameLayers(boxes.layers, layers)) return boxes;
    await closeBashBoxes(boxes).catch(() => {});
    return undefined;
  }

  /** What is held ready now: the pair's sandboxes and their memory (PSS). */
  async stats(): Promise<WarmPoolStats> {
    const ready = this.#ready;
    if (!ready) return { idle: 0, memoryBytes: 0, limit: PAIR };
    const stats = await Promise.all([ready.agent.stats(), ready.evaluator.stats()]).catch(() => []);
    const memoryBytes = stats.reduce((sum, each) => sum + each.memoryBytes, 0);
    return { idle: stats.length, memoryBytes, limit: PAIR };
  }

  /** Closes the spare (waiting for one still being made). */
  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#pending;
    this.#pending = undefined;
    this.#ready = undefined;
    const boxes: BashBoxes | undefined = await pending;
    if (boxes) await closeBashBoxes(boxes).catch(() => {});
  }
}
