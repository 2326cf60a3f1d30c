import { describe, expect, it } from 'vitest';
import type { TurnRecord } from '../../src/agents/agent.js';
import type { EpisodeRecord } from '../../src/harness/episode-record.js';
import { computeMetrics, metricsByGroup } from '../../src/harness/metrics.js';
import { runSummarySchema } from '../../src/harness/run-files/run-summary-schema.js';
import { summarize } from '../../src/harness/run-summary.js';

function turn(reward: number, admissible: boolean): TurnRecord {
  return { action: 'ls', observation: '', reward, admissible, durationMs: 1 };
}

function episode(taskId: string, turns: TurnRecord[], extra: Partial<EpisodeRecord> = {}): EpisodeRecord {
  const maxReward = turns.length > 0 ? Math.max(...turns.map((t) => t.reward)) : 0;
  return {
    taskId,
    index: 0,
    dataset: 'test',
    query: 'q',
    turns,
    reward: turns.at(-1)?.reward ?? 0,
    maxReward,
    success: maxReward === 1,
    turnsTaken: turns.length,
    terminated: maxReward === 1,
    truncated: false,
    durationMs: 1,
    ...extra,
  };
}

// Success on turn 2 of 2 (1 of 2 turns inadmissible), best 0.67 but last 0.05 (1 of 4), no turns (an error).
const solved = episode('a', [turn(0.34, false), turn(1, true)], { group: 'fs1' });
const partial = episode('b', [turn(0.67, true), turn(0.05, false), turn(0.05, true), turn(0.05, true)], {
  group: 'fs2',
});
const failed = episode('c', [], { group: 'fs1', error: 'sandbox failed to start' });

const NONE = { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, reasoning: 0 };

describe('computeMetrics', () => {
  it('is all zeros without episodes', () => {
    expect(computeMetrics([])).toEqual({
      n: 0,
      solved: 0,
      successRate: 0,
      meanReward: 0,
      meanTurns: 0,
      errorRate: 0,
      firstTurnSolved: 0,
      firstTurnSuccessRate: 0,
      usage: NONE,
      costUsd: 0,
      episodeErrors: 0,
    });
  });

  it('counts success as maxReward 1, means max rewards and turns taken, and leaves failed episodes out', () => {
    const metrics = computeMetrics([solved, partial, failed]);
    // The episode that could not be played is counted apart, never as unsolved.
    expect(metrics).toMatchObject({ n: 2, solved: 1, episodeErrors: 1 });
    expect(metrics.successRate).toBe(1 / 2);
    // The best reward of each episode, not the last one (0.05 for b).
    expect(metrics.meanReward).toBeCloseTo((1 + 0.67) / 2, 12);
    expect(metrics.meanTurns).toBe((2 + 4) / 2);
  });

  it('counts first-turn success as a first turn that scored 1', () => {
    const first = episode('f', [turn(1, true)]);
    const metrics = computeMetrics([solved, partial, first, failed]);
    expect(metrics).toMatchObject({ n: 3, solved: 2, firstTurnSolved: 1 });
    expect(metrics.firstTurnSuccessRate).toBe(1 / 3);
  });

  it("takes the error rate as the mean of each episode's share of inadmissible turns (the paper's Error %)", () => {
    const metrics = computeMetrics([solved, partial, failed]);
    // (1/2 + 1/4) / 2, not the pooled 2/6; the failed episode is not in it.
    expect(metrics.errorRate).toBeCloseTo((0.5 + 0.25) / 2, 12);
    expect(computeMetrics([solved]).errorRate).toBe(0.5);
    expect(computeMetrics([episode('d', [turn(0, false), turn(0, false)])]).errorRate).toBe(1);
  });

  it('sums tokens and cost over every episode, failed ones included; one unknown cost makes the sum unknown', () => {
    const usage = (input: number, cachedInput: number) => ({
      ...NONE,
      input,
      cachedInput,
      output: 10,
      reasoning: 2,
    });
    const a = episode('a', [turn(1, true)], { usage: usage(100, 40), costUsd: 0.25 });
    const b = episode('b', [turn(0, true)], { usage: usage(50, 0), costUsd: 0.5 });
    const spent = episode('c', [], { error: 'endpoint gone', usage: usage(7, 0), costUsd: 0.125 });
    expect(computeMetrics([a, b, spent])).toMatchObject({
      usage: { input: 157, cachedInput: 40, output: 30, reasoning: 6, cacheWrite: 0 },
      costUsd: 0.875,
    });
    const unpriced = episode('d', [turn(0, true)], { usage: usage(5, 0), costUsd: null });
    expect(computeMetrics([a, unpriced, b]).costUsd).toBeNull();
    // Episodes without model calls (gold, replay) cost nothing.
    expect(computeMetrics([solved, partial])).toMatchObject({ usage: NONE, costUsd: 0 });
  });
});

describe('metricsByGroup', () => {
  it('computes the same metrics per group, groups sorted, ungrouped episodes under "all"', () => {
    const ungrouped = episode('e', [turn(1, true)]);
    const byGroup = metricsByGroup([partial, solved, ungrouped, failed]);
    expect(Object.keys(byGroup)).toEqual(['all', 'fs1', 'fs2']);
    expect(byGroup.fs1).toEqual(computeMetrics([solved, failed]));
    expect(byGroup.fs1).toMatchObject({ n: 1, episodeErrors: 1 });
    expect(byGroup.fs2).toMatchObject({ n: 1, solved: 0, meanReward: 0.67, meanTurns: 4, errorRate: 0.25 });
    expect(byGroup.all).toMatchObject({ n: 1, solved: 1, successRate: 1 });
  });
});

describe('summarize', () => {
  it('writes the DESIGN §8 summary fields with per-group n, success and reward', () => {
    const description = { dataset: 'demo/bash', env: 'bash', agent: 'gold', backend: 'bwrap', maxTurns: 10 };
    const summary = summarize(description, [solved, partial, failed], 1234, false);
    const { episodeErrors: _errors, ...metrics } = computeMetrics([solved, partial, failed]);
    expect(summary).toEqual({
      schemaVersion: 2,
      ...description,
      ...metrics,
      byGroup: {
        fs1: { n: 1, successRate: 1, meanReward: 1 },
        fs2: { n: 1, successRate: 0, meanReward: 0.67 },
      },
      durationMs: 1234,
      episodeErrors: 1,
      complete: false,
    });
    // The version comes first in summary.json, and the summary passes its own schema.
    expect(Object.keys(summary)[0]).toBe('schemaVersion');
    expect(runSummarySchema.safeParse(summary).success).toBe(true);
  });
});
