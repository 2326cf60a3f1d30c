import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.js';
import type { EpisodeRecord } from '../../src/harness/episode-record.js';
import { episodeSlots, orderEpisodes, withSample } from '../../src/harness/episode-slots.js';

const task = (index: number): Task => ({ id: `t${index}`, index, query: 'q', meta: {} });
const record = (taskId: string, sample?: number): EpisodeRecord => ({
  taskId,
  index: 0,
  ...(sample !== undefined ? { sample } : {}),
  dataset: 'd',
  query: 'q',
  turns: [],
  reward: 0,
  maxReward: 0,
  success: false,
  turnsTaken: 0,
  terminated: true,
  truncated: false,
  durationMs: 1,
});

describe('episode slots', () => {
  it('lists each task × sample once, keyed by task and sample', () => {
    const slots = episodeSlots([task(0), task(1)], 3);
    expect(slots.map((slot) => slot.key)).toEqual(['t0#0', 't0#1', 't0#2', 't1#0', 't1#1', 't1#2']);
  });

  it('marks every record of a run of several samples, none of a run of one', () => {
    expect(withSample(record('t0'), 0, 1)).not.toHaveProperty('sample');
    expect(withSample(record('t0'), 0, 2)).toHaveProperty('sample', 0);
    expect(withSample(record('t0'), 1, 2)).toHaveProperty('sample', 1);
  });

  it('orders records by task position, then sample', () => {
    const records = [record('t1', 1), record('t0', 1), record('t1', 0), record('t0')];
    orderEpisodes(records, [task(0), task(1)]);
    expect(records.map((entry) => `${entry.taskId}#${entry.sample ?? 0}`)).toEqual([
      't0#0',
      't0#1',
      't1#0',
      't1#1',
    ]);
  });
});
