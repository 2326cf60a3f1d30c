import type { LlmTurn, ModelCallRecord } from '../../core/run-files/episode-record-schema.js';
import { addUsage, NO_USAGE, type TokenUsage } from './model-client.js';

/**
 * Tokens and cost of model calls, summed: a turn's, an episode's, a run's (the run summary's
 * totals). Design notes: docs/agents/cost-and-cache.md.
 */
export interface UsageTotals {
  /** Model calls, answers from the response cache included. */
  readonly calls: number;
  /** Calls answered from the response cache (`--cache`): no request was sent, nothing was paid. */
  readonly responseCacheHits: number;
  /**
   * Tokens of every call, cache hits included (a cache hit keeps its original call's tokens, so a
   * re-run from the cache reports the same tokens as the run that paid for them).
   */
  readonly usage: TokenUsage;
  /** Tokens of the calls answered from the response cache (a part of `usage`). */
  readonly responseCacheUsage: TokenUsage;
  /** US dollars of the calls whose cost is known (a lower bound when `costUnknown`). */
  readonly costUsd: number;
  /** Some call had no price (cost `null`): `costUsd` leaves it out. */
  readonly costUnknown: boolean;
}

/** Nothing: the start of a sum. */
export const NO_TOTALS: UsageTotals = {
  calls: 0,
  responseCacheHits: 0,
  usage: NO_USAGE,
  responseCacheUsage: NO_USAGE,
  costUsd: 0,
  costUnknown: false,
};

/** Adds two totals field by field. */
export function addTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    calls: a.calls + b.calls,
    responseCacheHits: a.responseCacheHits + b.responseCacheHits,
    usage: addUsage(a.usage, b.usage),
    responseCacheUsage: addUsage(a.responseCacheUsage, b.responseCacheUsage),
    costUsd: a.costUsd + b.costUsd,
    costUnknown: a.costUnknown || b.costUnknown,
  };
}

/** The totals of one recorded model call. */
export function callTotals(call: Pick<ModelCallRecord, 'usage' | 'costUsd' | 'cached'>): UsageTotals {
  return {
    calls: 1,
    responseCacheHits: call.cached ? 1 : 0,
    usage: call.usage,
    responseCacheUsage: call.cached ? call.usage : NO_USAGE,
    costUsd: call.costUsd ?? 0,
    costUnknown: call.costUsd === null,
  };
}

/** The totals of a turn's model calls (none for a turn without a model, e.g. a forced submit). */
export function turnTotals(turn: { readonly llm?: Pick<LlmTurn, 'calls'> | undefined }): UsageTotals {
  return (turn.llm?.calls ?? []).map(callTotals).reduce(addTotals, NO_TOTALS);
}

/** The totals of an episode: the sum of its turns'. */
export function episodeTotals(episode: {
  readonly turns: readonly { readonly llm?: Pick<LlmTurn, 'calls'> | undefined }[];
}): UsageTotals {
  return episode.turns.map(turnTotals).reduce(addTotals, NO_TOTALS);
}

/** The totals of a run: the sum of its episodes' (`episodes.jsonl`). */
export function runTotals(
  episodes: Iterable<{ readonly turns: readonly { readonly llm?: Pick<LlmTurn, 'calls'> | undefined }[] }>,
): UsageTotals {
  let totals = NO_TOTALS;
  for (const episode of episodes) totals = addTotals(totals, episodeTotals(episode));
  return totals;
}

/**
 * The `usage` and `costUsd` fields of an episode record from its totals: none when the episode
 * made no model call, and a `null` cost when one of its calls had no price.
 */
export function episodeUsageFields(totals: UsageTotals): {
  readonly usage?: TokenUsage;
  readonly costUsd?: number | null;
} {
  if (totals.calls === 0) return {};
  return { usage: totals.usage, costUsd: totals.costUnknown ? null : totals.costUsd };
}
