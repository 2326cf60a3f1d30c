import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { paperModelName } from '../../../src/harness/paper/paper-model-name.js';
import { cleanup, tempDir } from '../../datasets/mirror-fixture.js';

const made: string[] = [];
afterAll(() => cleanup(made));

const RESULTS = '/mirror/data/results';

describe('paperModelName', () => {
  it('names the paper model of a model spec, dated snapshots included, or nothing', () => {
    expect(paperModelName('openai:gpt-4')).toBe('gpt-4');
    expect(paperModelName('openai:gpt-4-0613')).toBe('gpt-4');
    expect(paperModelName('openai:gpt-3.5-turbo')).toBe('gpt-3.5-turbo');
    expect(paperModelName('openrouter:openai/gpt-3.5-turbo-0301')).toBe('gpt-3.5-turbo');
    expect(paperModelName('openai:gpt-4o')).toBeUndefined();
    expect(paperModelName('anthropic:claude-sonnet-4-5')).toBeUndefined();
    expect(paperModelName(undefined)).toBeUndefined();
  });

  it('names the model that recorded a replayed upstream file, from its name or its folder', () => {
    expect(paperModelName(`replay:${RESULTS}/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json`)).toBe('gpt-4');
    expect(paperModelName(`replay:${RESULTS}/sql/gpt-3.5/ic_sql_react_10_turns.json`)).toBe('gpt-3.5-turbo');
    expect(paperModelName(`replay:${RESULTS}/sql/gpt-3.5/ic_sql_plan_solve.json`)).toBe('gpt-3.5-turbo');
    expect(paperModelName(`replay:${RESULTS}/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_2.json`)).toBe(
      'gpt-4',
    );
    expect(paperModelName(`replay:${RESULTS}/sql/vicuna/ic_sql_multiturn_vicuna_10_turns.json`)).toBe(
      'vicuna-13b',
    );
    expect(
      paperModelName(`replay:${RESULTS}/sql/human/ic_sql_multiturn_human_10_turns.json`),
    ).toBeUndefined();
  });

  it("names the model of a replayed episodes.jsonl by its run's summary.json", () => {
    const run = join(tempDir('paper-model', made), 'run');
    mkdirSync(run);
    writeFileSync(join(run, 'summary.json'), JSON.stringify({ model: 'openai:gpt-4-0314' }));
    expect(paperModelName(`replay:${join(run, 'episodes.jsonl')}`)).toBe('gpt-4');
    expect(paperModelName(`replay:${join(run, 'none', 'episodes.jsonl')}`)).toBeUndefined();
  });
});
