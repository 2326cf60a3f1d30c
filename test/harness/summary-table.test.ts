import { describe, expect, it } from 'vitest';
import { computeMetrics, metricsByGroup } from '../../src/harness/metrics.js';
import { SUMMARY_HEADER, summaryRows, summaryTable } from '../../src/harness/summary-table.js';
import { sampleRecord } from './sample-records.js';

const episodes = [
  sampleRecord('a'),
  sampleRecord('b', { index: 1, group: 'text' }),
  sampleRecord('c', { index: 2, group: 'text', maxReward: 0.5, turnsTaken: 3 }),
];

describe('summaryTable', () => {
  it('prints all, then each group when there are several', () => {
    expect(summaryTable(computeMetrics(episodes), metricsByGroup(episodes)).split('\n')).toEqual([
      'group   n  solved  success  first turn  mean reward  turns  error  failed',
      '------  -  ------  -------  ----------  -----------  -----  -----  ------',
      'all     3       2    66.7%       66.7%        0.833   1.67   0.0%       0',
      'search  1       1   100.0%      100.0%        1.000   1.00   0.0%       0',
      'text    2       1    50.0%       50.0%        0.750   2.00   0.0%       0',
    ]);
  });

  it('leaves out a single group unless every group is asked for', () => {
    const one = episodes.slice(1);
    const rows = summaryRows(computeMetrics(one), metricsByGroup(one));
    expect(rows.map((row) => row[0])).toEqual(['all']);
    const every = summaryRows(computeMetrics(one), metricsByGroup(one), { everyGroup: true });
    expect(every).toEqual([
      ['all', '2', '1', '50.0%', '50.0%', '0.750', '2.00', '0.0%', '0'],
      ['text', '2', '1', '50.0%', '50.0%', '0.750', '2.00', '0.0%', '0'],
    ]);
    expect(SUMMARY_HEADER).toHaveLength(every[0]!.length);
  });

  it('adds a line of tokens and cost when a model was called, an unknown cost said so', () => {
    const usage = { input: 1200, output: 80, cachedInput: 300, cacheWrite: 0, reasoning: 20 };
    const called = [sampleRecord('a', { usage, costUsd: 0.0123 })];
    expect(summaryTable(computeMetrics(called), metricsByGroup(called)).split('\n').at(-1)).toBe(
      'tokens: 1200 in (300 cached), 80 out (20 reasoning); cost $0.0123',
    );
    const unpriced = [sampleRecord('a', { usage, costUsd: null })];
    expect(summaryTable(computeMetrics(unpriced), metricsByGroup(unpriced))).toMatch(/; cost unknown$/);
  });
});
