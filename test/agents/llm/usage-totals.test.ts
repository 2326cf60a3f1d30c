import { describe, expect, it } from 'vitest';
import type { TokenUsage } from '../../../src/agents/llm/model-client.js';
import {
  episodeTotals,
  episodeUsageFields,
  NO_TOTALS,
  runTotals,
  turnTotals,
} from '../../../src/agents/llm/usage-totals.js';
import type { ModelCallRecord } from '../../../src/core/run-files/episode-record-schema.js';

function call(usage: Partial<TokenUsage>, costUsd: number | null, cached?: boolean): ModelCallRecord {
  return {
    messages: [{ role: 'user', content: 'q' }],
    output: 'a',
    finishReason: 'stop',
    usage: { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, reasoning: 0, ...usage },
    costUsd,
    latencyMs: 1,
    retries: [],
    ...(cached === undefined ? {} : { cached }),
  };
}

describe('usage totals', () => {
  const planTurn = {
    llm: {
      calls: [
        call({ input: 100, output: 30, cachedInput: 60, reasoning: 10 }, 0.002),
        call({ input: 120, output: 10, cacheWrite: 20 }, 0.001),
      ],
    },
  };
  const cachedTurn = { llm: { calls: [call({ input: 50, output: 5 }, 0, true)] } };
  const forcedSubmit = {};

  it('sums a turn’s calls', () => {
    expect(turnTotals(planTurn)).toEqual({
      calls: 2,
      responseCacheHits: 0,
      usage: { input: 220, output: 40, cachedInput: 60, cacheWrite: 20, reasoning: 10 },
      responseCacheUsage: { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, reasoning: 0 },
      costUsd: 0.003,
      costUnknown: false,
    });
    expect(turnTotals(forcedSubmit)).toEqual(NO_TOTALS);
  });

  it('sums an episode’s turns, answers from the cache counted apart', () => {
    const totals = episodeTotals({ turns: [planTurn, cachedTurn, forcedSubmit] });
    expect(totals.calls).toBe(3);
    expect(totals.responseCacheHits).toBe(1);
    expect(totals.usage.input).toBe(270);
    expect(totals.responseCacheUsage).toEqual({
      input: 50,
      output: 5,
      cachedInput: 0,
      cacheWrite: 0,
      reasoning: 0,
    });
    expect(totals.costUsd).toBeCloseTo(0.003, 12);
    expect(episodeUsageFields(totals)).toEqual({ usage: totals.usage, costUsd: totals.costUsd });
    expect(episodeUsageFields(episodeTotals({ turns: [forcedSubmit] }))).toEqual({});
  });

  it('sums a run, and says when a cost is unknown', () => {
    const unpriced = { turns: [{ llm: { calls: [call({ input: 10, output: 1 }, null)] } }] };
    const totals = runTotals([{ turns: [planTurn] }, unpriced, { turns: [cachedTurn] }]);
    expect(totals.calls).toBe(4);
    expect(totals.usage).toEqual({ input: 280, output: 46, cachedInput: 60, cacheWrite: 20, reasoning: 10 });
    expect(totals.costUnknown).toBe(true);
    expect(totals.costUsd).toBeCloseTo(0.003, 12);
    expect(episodeUsageFields(episodeTotals(unpriced)).costUsd).toBeNull();
    expect(runTotals([])).toEqual(NO_TOTALS);
  });
});
