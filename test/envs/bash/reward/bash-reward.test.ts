import { describe, expect, it, vi } from 'vitest';
import {
  type BashRewardInput,
  bashReward,
  contentCheckedChanges,
  fileDiffScore,
  sumRewardParts,
} from '../../../../src/envs/bash/reward/bash-reward.js';
import type { GitStatusEntry } from '../../../../src/envs/bash/reward/git-status.js';

const untracked = (path: string): GitStatusEntry => ({ path, status: '??' });
const modified = (path: string): GitStatusEntry => ({ path, status: 'M' });

/** A read-only task: no file changes, the given outputs. */
function readOnly(agentOutput: string, goldOutput: string | null): BashRewardInput {
  return { agentChanges: [], evalChanges: [], sameContent: new Map(), agentOutput, goldOutput };
}

describe('bashReward', () => {
  it('gives exactly 1.0 for a perfect match', () => {
    const r = bashReward({
      agentChanges: [untracked('testbed/out.txt'), modified('testbed/a.txt')],
      evalChanges: [modified('testbed/a.txt'), untracked('testbed/out.txt')],
      sameContent: new Map([['testbed/out.txt', true]]),
      agentOutput: 'total 3\nfile1.txt file2.txt\n',
      goldOutput: 'total 3\nfile1.txt file2.txt\n',
    });
    expect(r.value).toBe(1);
    expect(r.parts).toEqual({ file_diff: 0.33, file_changes: 0.33, answer_similarity: 0.33 });
    expect(r.details.diffMiss).toEqual([]);
    expect(r.details.diffExtra).toEqual([]);
    expect(r.details.diffSame).toEqual({ files: [untracked('testbed/out.txt')], correct: 1, total: 1 });
    expect(r.details.similarityFromEquality).toBe(false);
  });

  it('gives 0.67 on a read-only task whose output differs', () => {
    const r = bashReward(readOnly('hello world\n', 'something else entirely\n'));
    expect(r.parts).toEqual({ file_diff: 0.33, file_changes: 0.33, answer_similarity: 0 });
    expect(r.value).toBe(0.67);
    expect(r.details.diffSame).toBeUndefined();
    expect(r.details.similarity).toBe(0);
  });

  it('scores one extra changed file 0.05 and two 0 on the file diff', () => {
    const one = bashReward({ ...readOnly('ok', 'ok'), agentChanges: [untracked('junk.txt')] });
    expect(one.parts.file_diff).toBe(0.05);
    expect(one.details.diffExtra).toEqual([untracked('junk.txt')]);
    expect(one.value).toBe(0.72);
    const two = bashReward({
      ...readOnly('ok', 'ok'),
      agentChanges: [untracked('a.txt'), untracked('b.txt')],
    });
    expect(two.parts.file_diff).toBe(0);
    expect(two.value).toBe(0.67);
    const missing = bashReward({ ...readOnly('ok', 'ok'), evalChanges: [untracked('wanted.txt')] });
    expect(missing.parts.file_diff).toBe(0.05);
    expect(missing.details.diffMiss).toEqual([untracked('wanted.txt')]);
    expect([0, 1, 2, 3, 10].map(fileDiffScore)).toEqual([0.33, 0.05, 0, 0, 0]);
  });

  it('counts a status change of the same path as one miss and one extra', () => {
    const r = bashReward({
      ...readOnly('', ''),
      agentChanges: [modified('a.txt')],
      evalChanges: [{ path: 'a.txt', status: 'D' }],
    });
    expect(r.details.diffMiss).toEqual([{ path: 'a.txt', status: 'D' }]);
    expect(r.details.diffExtra).toEqual([modified('a.txt')]);
    expect(r.parts.file_diff).toBe(0);
  });

  it('gives partial credit for files whose content differs', () => {
    const files = ['a.txt', 'b.txt', 'c.txt'].map(untracked);
    const score = (paths: string[], same: string[]) =>
      bashReward({
        ...readOnly('x', 'x'),
        agentChanges: files.filter((f) => paths.includes(f.path)),
        evalChanges: files.filter((f) => paths.includes(f.path)),
        sameContent: (path) => same.includes(path),
      });
    const half = score(['a.txt', 'b.txt'], ['a.txt']);
    expect(half.parts.file_changes).toBe(0.17);
    expect(half.details.diffSame).toMatchObject({ correct: 1, total: 2 });
    expect(half.value).toBe(0.8400000000000001); // float artefacts as in the logs
    expect(score(['a.txt', 'b.txt', 'c.txt'], ['b.txt']).parts.file_changes).toBe(0.11);
    expect(score(['a.txt', 'b.txt', 'c.txt'], ['a.txt', 'c.txt']).parts.file_changes).toBe(0.22);
    expect(score(['a.txt', 'b.txt', 'c.txt'], ['a.txt', 'c.txt']).value).toBe(0.8900000000000001);
    expect(score(['a.txt'], []).parts.file_changes).toBe(0);
  });

  it('content-checks only A, ?? and C entries present on both sides', () => {
    const sameContent = vi.fn((_path: string) => true);
    const agentChanges = [
      modified('m.txt'),
      { path: 'd.txt', status: 'D' },
      { path: 'added.txt', status: 'A' },
      untracked('new/'),
      { path: 'copy.txt', status: 'C' },
      untracked('agent-only.txt'),
    ];
    const evalChanges = agentChanges.filter((c) => c.path !== 'agent-only.txt');
    expect(contentCheckedChanges(agentChanges, evalChanges).map((c) => c.path)).toEqual([
      'added.txt',
      'new/',
      'copy.txt',
    ]);
    const r = bashReward({ ...readOnly('', ''), agentChanges, evalChanges, sameContent });
    expect(sameContent.mock.calls.map(([path]) => path)).toEqual(['added.txt', 'new/', 'copy.txt']);
    expect(r.details.diffSame?.total).toBe(3);
    expect(r.parts.file_changes).toBe(0.33);
  });

  it('treats repeated pairs once, as upstream sets do', () => {
    const r = bashReward({
      ...readOnly('', ''),
      agentChanges: [untracked('x.txt'), untracked('x.txt'), untracked('extra.txt'), untracked('extra.txt')],
      evalChanges: [untracked('x.txt')],
      sameContent: new Map([['x.txt', false]]),
    });
    expect(r.details.diffExtra).toEqual([untracked('extra.txt')]);
    expect(r.details.diffSame).toEqual({ files: [untracked('x.txt')], correct: 0, total: 1 });
    expect(r.parts).toEqual({ file_diff: 0.05, file_changes: 0, answer_similarity: 0.33 });
  });

  it('throws when a content-checked path has no comparison in the map', () => {
    expect(() =>
      bashReward({
        ...readOnly('', ''),
        agentChanges: [untracked('a.txt')],
        evalChanges: [untracked('a.txt')],
      }),
    ).toThrow(/a\.txt/);
  });

  it('falls back to exact equality when there is no vocabulary', () => {
    const empty = bashReward(readOnly('', ''));
    expect(empty.parts.answer_similarity).toBe(0.33);
    expect(empty.details).toMatchObject({ similarity: 1, similarityFromEquality: true });
    expect(empty.value).toBe(1);
    const digits = bashReward(readOnly('2\n', '3\n'));
    expect(digits.parts.answer_similarity).toBe(0);
    expect(digits.details).toMatchObject({ similarity: 0, similarityFromEquality: true });
    expect(bashReward(readOnly('2\n', '2\n')).parts.answer_similarity).toBe(0.33);
    expect(bashReward(readOnly('2\n', '2')).parts.answer_similarity).toBe(0); // exact, not trimmed
  });

  it('scores the answer 0 when the gold command failed', () => {
    const r = bashReward(readOnly('', null));
    expect(r.parts.answer_similarity).toBe(0);
    expect(r.details).toMatchObject({ similarity: 0, similarityFromEquality: true });
  });

  it('rounds the TF-IDF similarity to two places', () => {
    // Logged gpt-3.5 P&S fs_3 task 47: similarity 0.5797386715376657 → 0.19.
    const r = bashReward(readOnly('185 bytes\n', '185\n'));
    expect(r.details.similarity).toBe(0.5797386715376657);
    expect(r.parts.answer_similarity).toBe(0.19);
    expect(r.value).toBe(sumRewardParts(r.parts));
  });
});

describe('sumRewardParts', () => {
  it('adds left to right in float64', () => {
    expect(sumRewardParts({ file_diff: 0.33, file_changes: 0.33, answer_similarity: 0.33 })).toBe(1);
    expect(sumRewardParts({ file_diff: 0.33, file_changes: 0.33, answer_similarity: 0.03 })).toBe(
      0.7000000000000001,
    );
    expect(sumRewardParts({ file_diff: 0, file_changes: 0, answer_similarity: 0 })).toBe(0.01);
  });
});
