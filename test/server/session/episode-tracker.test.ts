import { describe, expect, it } from 'vitest';
import type { StepResult } from '../../../src/core/env.js';
import type { Task } from '../../../src/core/task.js';
import type { EndedEpisode } from '../../../src/server/session/episode-tracker.js';
import { EpisodeTracker } from '../../../src/server/session/episode-tracker.js';

// The record of a server episode from its steps: what `intercode serve --out` writes.

const task: Task = { id: 't7', index: 7, query: 'count the rows', gold: 'SELECT 1', group: 'easy', meta: {} };

function tracker(maxTurns = 3): { tracker: EpisodeTracker; ended: EndedEpisode[] } {
  const ended: EndedEpisode[] = [];
  const made = new EpisodeTracker(
    {
      task,
      resetInfo: { taskId: task.id, index: task.index, query: task.query },
      dataset: 'demo/sql',
      config: { dataset: 'demo/sql' },
      description: { dataset: 'demo/sql', env: 'sql', engine: 'sqlite' },
      maxTurns,
      transport: 'ws',
      sessionId: 's1',
    },
    (episode) => ended.push(episode),
  );
  return { tracker: made, ended };
}

function result(reward: number, end: { terminated?: boolean; truncated?: boolean } = {}): StepResult {
  return {
    observation: { text: `out ${reward}`, durationMs: 2 },
    reward,
    terminated: end.terminated ?? false,
    truncated: end.truncated ?? false,
    info: {
      admissible: true,
      ...(end.terminated
        ? { score: { value: reward, parts: { rows: reward }, details: { goldOutput: 'x'.repeat(20_000) } } }
        : {}),
    },
  };
}

describe('EpisodeTracker', () => {
  it('records a finished episode once, with the gold and the rewards sent', () => {
    const { tracker: t, ended } = tracker();
    t.turn({ type: 'code', code: 'SELECT 1' }, result(0));
    t.turn({ type: 'submit' }, result(1, { terminated: true }));
    t.cut();
    t.turn({ type: 'code', code: 'SELECT 2' }, result(0));
    expect(ended).toHaveLength(1);
    expect(ended[0]!.transport).toBe('ws');
    expect(ended[0]!.record).toMatchObject({
      taskId: 't7',
      index: 7,
      gold: 'SELECT 1',
      group: 'easy',
      reward: 1,
      maxReward: 1,
      success: true,
      turnsTaken: 2,
      terminated: true,
      truncated: false,
    });
    expect(ended[0]!.record.turns.map((turn) => [turn.action, turn.reward])).toEqual([
      ['SELECT 1', 0],
      ['submit', 1],
    ]);
    expect(ended[0]!.record.turns[1]!.parts).toEqual({ rows: 1 });
    // What the scorer saw, bounded as a run records it; an unscored turn has none.
    expect(ended[0]!.record.turns[1]!.details?.goldOutput).toBe(`${'x'.repeat(16_384)}…[cut 3616 bytes]`);
    expect(ended[0]!.record.turns[0]).not.toHaveProperty('details');
  });

  it('records a cut episode as truncated, the turn limit with truncatedBy, and nothing for no step', () => {
    const cut = tracker();
    cut.tracker.turn({ type: 'code', code: 'SELECT 1' }, result(0));
    cut.tracker.cut();
    expect(cut.ended[0]!.record).toMatchObject({ truncated: true, terminated: false, turnsTaken: 1 });
    expect(cut.ended[0]!.record.truncatedBy).toBeUndefined();
    const limited = tracker(1);
    limited.tracker.turn({ type: 'code', code: 'SELECT 1' }, result(0, { truncated: true }));
    expect(limited.ended[0]!.record).toMatchObject({ truncated: true, truncatedBy: 'max-turns' });
    const empty = tracker();
    empty.tracker.cut();
    expect(empty.ended).toHaveLength(0);
    expect(empty.tracker.ended).toBe(true);
  });

  it('records a failed step with its error, and no metrics-bearing turns', () => {
    const { tracker: t, ended } = tracker();
    t.turn({ type: 'code', code: 'SELECT 1' }, result(0));
    t.fail(new Error('the sandbox died'));
    t.cut();
    expect(ended).toHaveLength(1);
    expect(ended[0]!.record).toMatchObject({ error: 'the sandbox died', turns: [], reward: 0 });
  });
});
