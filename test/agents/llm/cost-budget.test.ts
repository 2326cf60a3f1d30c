import { describe, expect, it } from 'vitest';
import { CostBudget } from '../../../src/agents/llm/cost-budget.js';
import { PriceTable } from '../../../src/agents/llm/price-table.js';
import { UsageError } from '../../../src/core/errors.js';

/** Plays `episodes` one after another, each making calls of `costs`, as long as the budget lets it. */
function playInTurn(budget: CostBudget, episodes: readonly (readonly number[])[]): number {
  let started = 0;
  for (const [index, costs] of episodes.entries()) {
    if (!budget.canStart()) break;
    const key = `task-${index}`;
    budget.start(key);
    started += 1;
    for (const cost of costs) budget.add(cost, key);
    budget.finish(key);
  }
  return started;
}

describe('CostBudget', () => {
  it('stops starting episodes before the cap would be crossed', () => {
    const budget = new CostBudget(1);
    // Each episode costs 0.3 over three calls: after three (0.9), a fourth could reach 1.2.
    const started = playInTurn(
      budget,
      Array.from({ length: 10 }, () => [0.1, 0.1, 0.1]),
    );
    expect(started).toBe(3);
    expect(budget.spentUsd).toBeCloseTo(0.9, 12);
    expect(budget.spentUsd).toBeLessThanOrEqual(budget.maxCostUsd);
    const reason = budget.refusal();
    expect(reason).toBe(
      '--max-cost $1.00: $0.90 spent; one more episode, estimated at $0.30 (the costliest so far), could cross the cap; no new episodes are started',
    );
  });

  it('lets the run spend up to the cap exactly', () => {
    const budget = new CostBudget(1);
    expect(
      playInTurn(
        budget,
        Array.from({ length: 6 }, () => [0.125, 0.125]),
      ),
    ).toBe(4);
    expect(budget.spentUsd).toBe(1);
  });

  it('estimates an episode at the costliest so far, not the mean', () => {
    const budget = new CostBudget(1.1);
    // After 0.1 + 0.5 + 0.1 = 0.7, the mean (0.23) would let a fourth start; the largest (0.5) does not.
    expect(playInTurn(budget, [[0.1], [0.5], [0.1], [0.5]])).toBe(3);
    expect(budget.episodeEstimateUsd).toBe(0.5);
  });

  it('counts what the episodes in flight may still spend', () => {
    const budget = new CostBudget(1);
    budget.start('a');
    budget.add(0.25, 'a');
    budget.finish('a');
    // Three episodes in flight, each estimated at 0.25: 0.25 + 3 × 0.25 = 1.0 committed.
    for (const key of ['b', 'c', 'd']) {
      expect(budget.canStart()).toBe(true);
      budget.start(key);
    }
    expect(budget.committedUsd).toBeCloseTo(1, 12);
    expect(budget.canStart()).toBe(false);
    expect(budget.refusal()).toContain('and 3 in flight (up to $0.75 more)');
    // An episode in flight that spent more raises the estimate for the others too.
    budget.add(0.05, 'b');
    budget.add(0.3, 'c');
    expect(budget.episodeEstimateUsd).toBeCloseTo(0.3, 12);
    expect(budget.committedUsd).toBeCloseTo(0.25 + 0.3 + 0.3 + 0.3, 12);
    // When they finish below the estimate, room is back for another: 0.6 spent + 0.3.
    budget.finish('b');
    budget.finish('c');
    budget.finish('d');
    expect(budget.spentUsd).toBeCloseTo(0.6, 12);
    expect(budget.canStart()).toBe(true);
    const roomy = new CostBudget(2);
    roomy.addFinished(0.25);
    roomy.addFinished(0.35);
    expect(roomy.canStart()).toBe(true);
  });

  it('lets the first episode start with nothing known, and stops once the cap is reached', () => {
    const budget = new CostBudget(0.5);
    expect(budget.canStart()).toBe(true);
    budget.start('a');
    budget.add(0.6, 'a');
    // The call that crossed it is counted (the cap is checked between episodes, not mid-call).
    expect(budget.canStart()).toBe(false);
    expect(budget.refusal()).toBe(
      '--max-cost $0.50: $0.60 spent, the cap is reached; no new episodes are started',
    );
  });

  it('a call without a price stops new episodes', () => {
    const budget = new CostBudget(10);
    budget.start('a');
    budget.add(null, 'a');
    expect(budget.canStart()).toBe(false);
    expect(budget.refusal()).toContain('a model call had no price');
  });

  it('episodes of a resumed run count toward the cap', () => {
    const budget = new CostBudget(1);
    budget.addFinished(0.4);
    budget.addFinished(0.4);
    expect(budget.spentUsd).toBeCloseTo(0.8, 12);
    expect(budget.canStart()).toBe(false);
  });

  it('refuses a bad cap', () => {
    expect(() => new CostBudget(-1)).toThrow(UsageError);
    expect(() => new CostBudget(Number.NaN)).toThrow(
      '--max-cost NaN: expected a non-negative amount of US dollars',
    );
  });

  it('check refuses a capped run of a model without a price, in one line', () => {
    const table = PriceTable.load();
    expect(() => CostBudget.check('openai:gpt-4o', table)).not.toThrow();
    expect(() => CostBudget.check('replay:file.json', table)).not.toThrow();
    expect(() => CostBudget.check('openai:my-local-model', table)).toThrow(
      '--max-cost: the model openai:my-local-model has no price, so its cost cannot be capped; give its price with --prices FILE',
    );
  });
});
