import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DatasetError } from '../../../src/core/errors.js';
import { readRunSummary } from '../../../src/harness/run-files/read-run-summary.js';
import { summarize } from '../../../src/harness/run-summary.js';
import { cleanup, tempDir } from '../../datasets/mirror-fixture.js';
import { sampleRecord } from '../sample-records.js';

const made: string[] = [];
afterAll(() => cleanup(made));

const description = { dataset: 'demo/bash', env: 'bash', agent: 'gold', backend: 'bwrap' };
const episodes = [sampleRecord('a'), sampleRecord('b', { index: 1, maxReward: 0.5, group: 'text' })];

/** summary.json as the runner writes it. */
function writeSummary(value: unknown): string {
  const path = join(tempDir('run-summary', made), 'summary.json');
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
  return path;
}

describe('readRunSummary', () => {
  it('reads the summary a run writes, skipped tasks included', () => {
    const summary = {
      ...summarize(description, episodes, 812.5, true),
      skipped: [{ taskId: 'ctf/9', reason: 'needs the internet' }],
    };
    expect(readRunSummary(writeSummary(summary))).toEqual(summary);
  });

  it('reads a summary written before schemaVersion existed as version 1', () => {
    const { schemaVersion: _version, ...old } = summarize(description, episodes, 812.5, false);
    expect(old).not.toHaveProperty('schemaVersion');
    const read = readRunSummary(writeSummary(old));
    expect(read).toEqual({ schemaVersion: 1, ...old });
    expect(Object.keys(read)[0]).toBe('schemaVersion');
  });

  it('reads a version 1 summary, without the setting, first-turn and cost fields of version 2', () => {
    const {
      firstTurnSolved: _solved,
      firstTurnSuccessRate: _rate,
      usage: _usage,
      costUsd: _cost,
      ...v1
    } = { ...summarize(description, episodes, 812.5, true), schemaVersion: 1 as const };
    expect(readRunSummary(writeSummary(v1))).toEqual(v1);
  });

  it('fails in one line naming the file for a newer version, bad JSON or a malformed summary', () => {
    const summary = summarize(description, episodes, 1, true);
    const cases: [unknown, RegExp][] = [
      [{ ...summary, schemaVersion: 3 }, /has schemaVersion 3, newer than this intercode reads \(2\)/],
      [{ ...summary, n: -1 }, /is not a valid run summary: n: Too small: expected number to be >=0$/],
      [
        { ...summary, byGroup: { text: { n: 1 } } },
        /is not a valid run summary: byGroup\.text\.successRate: missing \(and 1 more\)$/,
      ],
    ];
    for (const [value, why] of cases) {
      const path = writeSummary(value);
      expect(() => readRunSummary(path)).toThrow(
        expect.objectContaining({ constructor: DatasetError, message: expect.stringMatching(why) }),
      );
      expect(() => readRunSummary(path)).toThrow(`${path} `);
    }
    const bad = writeSummary('');
    writeFileSync(bad, '{"dataset": ');
    expect(() => readRunSummary(bad)).toThrow(`${bad} is not valid JSON`);
    expect(() => readRunSummary(join(bad, '..', 'none.json'))).toThrow(
      /none\.json: cannot read it \(ENOENT\)/,
    );
  });
});
