import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atifTrajectorySchema } from '../../../src/harness/export/atif-schema.js';
import { cleanup, tempDir } from '../../datasets/mirror-fixture.js';
import { PREFIXES, toolsEpisode, tryAgainEpisode } from '../../harness/export/atif-fixtures.js';
import { writeRun } from '../../harness/report-fixtures.js';
import { sampleRecord } from '../../harness/sample-records.js';
import { type CliOptions, expectOneLineError, intercode } from '../cli-fixture.js';

// `intercode export --format atif` end to end: the compiled CLI on a language-model run (shared
// prompt prefix in prefixes.json) and on a gold run.
const made: string[] = [];
const base: CliOptions = { cache: tempDir('export-cache', made) };
let llmRun = '';
let goldRun = '';

beforeAll(() => {
  const root = tempDir('export', made);
  llmRun = writeRun(
    join(root, 'llm'),
    [tryAgainEpisode(), toolsEpisode()],
    {
      dataset: 'nl2bash',
      env: 'bash',
      agent: 'llm',
      model: 'openai:gpt-4',
      strategy: 'try-again',
      maxTurns: 10,
    },
    PREFIXES,
  );
  goldRun = writeRun(join(root, 'gold'), [sampleRecord('a'), sampleRecord('b', { index: 1 })], {
    dataset: 'demo/bash',
    env: 'bash',
    agent: 'gold',
    backend: 'bwrap',
  });
});
afterAll(() => cleanup(made));

/** The trajectories of JSON Lines text, each checked against the ATIF schema. */
function trajectories(text: string) {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => atifTrajectorySchema.parse(JSON.parse(line)));
}

describe('intercode export', () => {
  it('writes one ATIF trajectory per episode of a language-model run to --out', () => {
    const out = join(tempDir('export-out', made), 'run.atif.jsonl');
    const result = intercode(['export', llmRun, '--format', 'atif', '--out', out], base);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`intercode: wrote 2 trajectories to ${out}\n`);
    expect(result.status).toBe(0);
    const [first, second] = trajectories(readFileSync(out, 'utf8'));
    expect(first).toMatchObject({
      trajectory_id: 'llm/fs1/3',
      agent: { model_name: 'openai:gpt-4', version: expect.any(String) },
    });
    expect(first!.steps[0]).toEqual({ step_id: 1, source: 'system', message: PREFIXES.a1b2c3[0]!.content });
    expect(first!.steps.filter((s) => s.source === 'agent')).toHaveLength(3);
    expect(second!.steps[2]!.tool_calls?.[0]).toMatchObject({ function_name: 'execute', arguments: {} });
  });

  it('writes a gold run to standard output: agent steps without model calls', () => {
    const result = intercode(['export', goldRun, '--format', 'atif'], base);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const all = trajectories(result.stdout);
    expect(all.map((t) => t.trajectory_id)).toEqual(['gold/a', 'gold/b']);
    expect(all[0]!.steps.map((s) => [s.source, s.llm_call_count])).toEqual([
      ['user', undefined],
      ['agent', 0],
    ]);
    expect(all[0]!.steps[1]!.extra).toMatchObject({ reward: 1, admissible: true });
  });

  it('fails in one line for a missing or unknown format, a folder that is no run, a missing prefix', () => {
    expectOneLineError(intercode(['export', goldRun], base), /--format <format>' not specified/);
    expectOneLineError(intercode(['export', goldRun, '--format', 'csv'], base), /Allowed choices are atif/);
    const empty = tempDir('export-empty', made);
    expectOneLineError(
      intercode(['export', empty, '--format', 'atif'], base),
      /is not a run directory \(no episodes\.jsonl\)/,
    );
    writeFileSync(join(llmRun, 'prefixes.json'), '{}\n');
    try {
      const result = intercode(['export', llmRun, '--format', 'atif'], base);
      expectOneLineError(
        result,
        /episode fs1\/3, turn 0: its model call names the shared prompt prefix a1b2c3/,
      );
      expect(result.stdout).toBe('');
    } finally {
      writeFileSync(join(llmRun, 'prefixes.json'), JSON.stringify(PREFIXES));
    }
  });
});
