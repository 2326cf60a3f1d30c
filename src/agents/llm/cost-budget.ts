import { UsageError } from '../../core/errors.js';
import type { PriceTable } from './price-table.js';

/** Formats US dollars for the one-line messages: cents, or four decimals below a cent. */
function usd(value: number): string {
  return `$${value >= 0.01 || value === 0 ? value.toFixed(2) : value.toFixed(4)}`;
}

/** Sums of binary fractions are inexact: a projection this close to the cap counts as on it. */
const ROUNDING_USD = 1e-9;

/**
 * The run's cost cap (`--max-cost USD`). The run asks `canStart()` before it starts each episode,
 * tells `start(key)` / `finish(key)` when an episode begins and ends, and `add(cost, key)` after
 * each model call (before its output is parsed, so a call whose output is unusable is counted too).
 *
 * An episode is refused when the spend so far, plus what the episodes in flight may still spend,
 * plus one more episode could cross the cap. One episode is estimated at the costliest finished
 * episode so far (the largest, not the mean: the cap is a limit, so the estimate errs high), or an
 * episode in flight that has spent more; an episode in flight may still spend that estimate less
 * what it has spent. Before any episode has spent anything there is no estimate, and only the
 * spend so far counts (with `--concurrency N`, the first N episodes start). Details:
 * docs/agents/cost-and-cache.md.
 */
export class CostBudget {
  readonly maxCostUsd: number;
  private spent = 0;
  private costliestEpisode = 0;
  private unknownCost = false;
  /** The spend so far of each episode in flight, by key. */
  private readonly inFlight = new Map<string, number>();

  constructor(maxCostUsd: number) {
    if (!Number.isFinite(maxCostUsd) || maxCostUsd < 0) {
      throw new UsageError(`--max-cost ${maxCostUsd}: expected a non-negative amount of US dollars`);
    }
    this.maxCostUsd = maxCostUsd;
  }

  /**
   * Refuses a capped run whose model has no price: its spend could not be counted, so the cap
   * could not hold. Call it before any episode starts; throws a one-line `UsageError`.
   */
  static check(model: string, table: PriceTable): void {
    if (table.lookup(model) === undefined) {
      throw new UsageError(
        `--max-cost: the model ${model} has no price, so its cost cannot be capped; give its price with --prices FILE`,
      );
    }
  }

  /** US dollars spent so far by the calls `add` was told of. */
  get spentUsd(): number {
    return this.spent;
  }

  /**
   * The cost of one episode as estimated now: the costliest finished episode, or an episode in
   * flight that has already spent more; 0 before any episode has spent anything.
   */
  get episodeEstimateUsd(): number {
    return Math.max(this.costliestEpisode, ...this.inFlight.values());
  }

  /** The spend so far plus what the episodes in flight may still add (each up to the estimate). */
  get committedUsd(): number {
    const estimate = this.episodeEstimateUsd;
    let committed = this.spent;
    for (const spentByEpisode of this.inFlight.values()) committed += estimate - spentByEpisode;
    return committed;
  }

  /** Whether one more episode may start without the cap being crossed (as far as can be told). */
  canStart(): boolean {
    return this.refusal() === undefined;
  }

  /** Why no more episodes may start, in one line for the run to print; `undefined` while they may. */
  refusal(): string | undefined {
    const cap = `--max-cost ${usd(this.maxCostUsd)}`;
    if (this.unknownCost) {
      return `${cap}: a model call had no price, so the spend cannot be counted; no new episodes are started`;
    }
    if (this.spent >= this.maxCostUsd) {
      return `${cap}: ${usd(this.spent)} spent, the cap is reached; no new episodes are started`;
    }
    const estimate = this.episodeEstimateUsd;
    const committed = this.committedUsd;
    if (committed + estimate > this.maxCostUsd + ROUNDING_USD) {
      const flying =
        this.inFlight.size > 0
          ? ` and ${this.inFlight.size} in flight (up to ${usd(committed - this.spent)} more)`
          : '';
      return (
        `${cap}: ${usd(this.spent)} spent${flying}; one more episode, estimated at ${usd(estimate)} ` +
        `(the costliest so far), could cross the cap; no new episodes are started`
      );
    }
    return undefined;
  }

  /**
   * An episode that finished before this budget existed (those of `episodes.jsonl` when a run is
   * resumed) cost `cost`: it counts toward the spend and the estimate, so a cap holds across resumes.
   */
  addFinished(cost: number | null): void {
    this.add(cost);
    if (cost === null) return;
    this.costliestEpisode = Math.max(this.costliestEpisode, cost);
  }

  /** An episode starts (`key` names it within the run, e.g. its task id). */
  start(key: string): void {
    this.inFlight.set(key, this.inFlight.get(key) ?? 0);
  }

  /**
   * A model call cost `cost` US dollars (`null`: the model had no price, which stops new episodes).
   * With `key`, the cost counts toward that episode in flight.
   */
  add(cost: number | null, key?: string): void {
    if (cost === null) {
      this.unknownCost = true;
      return;
    }
    this.spent += cost;
    if (key !== undefined) {
      const episode = this.inFlight.get(key);
      if (episode !== undefined) this.inFlight.set(key, episode + cost);
    }
  }

  /** An episode ended (finished, failed or interrupted): its spend becomes part of the estimate. */
  finish(key: string): void {
    const episode = this.inFlight.get(key);
    if (episode === undefined) return;
    this.inFlight.delete(key);
    this.costliestEpisode = Math.max(this.costliestEpisode, episode);
  }
}
