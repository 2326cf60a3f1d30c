import { describe, expect, it } from 'vitest';
import { PAPER_FIGURES } from '../../../src/harness/paper/paper-figures.js';
import { type PaperSetting, paperFiguresFor } from '../../../src/harness/paper/paper-lookup.js';
import { paperModelName } from '../../../src/harness/paper/paper-model-name.js';

const sql = (model: string, strategy: string, maxTurns?: number, handicap = false): PaperSetting => ({
  env: 'sql',
  dataset: 'spider/dev',
  model: paperModelName(model),
  strategy,
  maxTurns,
  handicap,
});

/** The paper's figure of a setting for a group and metric: its value and where it is printed. */
function figure(setting: PaperSetting, group: string, metric: string) {
  const match = paperFiguresFor(setting).find((m) => m.group === group && m.metric === metric);
  return match && { value: match.figure.value, table: match.figure.source.table };
}

describe('paperFiguresFor', () => {
  it("gives the issue's settings their figures: SQL Try Again gpt-4 73.7, ReAct 58.7, P&S 49.1, Bash 48.5", () => {
    expect(figure(sql('openai:gpt-4', 'try-again', 10), 'all', 'successRate')).toEqual({
      value: 73.7,
      table: 'text',
    });
    expect(figure(sql('openai:gpt-3.5-turbo', 'react', 10), 'all', 'successRate')).toEqual({
      value: 58.7,
      table: 'Table 4',
    });
    expect(figure(sql('openai:gpt-3.5-turbo', 'plan-solve', 10), 'all', 'successRate')).toEqual({
      value: 49.1,
      table: 'Table 4',
    });
    const bash: PaperSetting = {
      env: 'bash',
      dataset: 'nl2bash',
      model: 'gpt-4',
      strategy: 'try-again',
      maxTurns: 10,
      handicap: false,
    };
    expect(figure(bash, 'all', 'successRate')).toEqual({ value: 48.5, table: 'Table 3' });
    expect(figure(bash, 'fs2', 'successRate')?.value).toBe(47.2);
    // The paper's single-turn Bash figures are the first turn of these runs.
    expect(figure(bash, 'all', 'firstTurnSuccessRate')?.value).toBe(34.0);
  });

  it('gives Try Again figures by hardness, and turns and Error % of Table 4', () => {
    const gpt4 = sql('replay:/r/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json', 'try-again', 10);
    expect(figure(gpt4, 'easy', 'successRate')?.value).toBe(87.5);
    expect(figure(gpt4, 'extra', 'successRate')?.value).toBe(52.4);
    // gpt-4's single-turn figures come from its own one-turn run, not from this run's first turn.
    expect(figure(gpt4, 'all', 'firstTurnSuccessRate')).toBeUndefined();
    const react = sql('openai:gpt-3.5-turbo', 'react', 10);
    expect(figure(react, 'all', 'meanTurns')?.value).toBe(5.3);
    expect(figure(react, 'all', 'errorRate')?.value).toBe(6.94);
    // Table 4's Try Again success of gpt-3.5 is the All column Table 2's text lacks.
    expect(figure(sql('openai:gpt-3.5-turbo', 'try-again', 10), 'all', 'successRate')).toEqual({
      value: 47.3,
      table: 'Table 4',
    });
  });

  it('compares single-turn runs with the single-turn column, and the schema hint with Table 5', () => {
    expect(figure(sql('openai:gpt-4', 'single', 1), 'all', 'successRate')).toEqual({
      value: 9.1,
      table: 'Table 2',
    });
    expect(figure(sql('openai:gpt-4', 'try-again', 1), 'medium', 'successRate')?.value).toBe(7.2);
    // text-davinci-003's single-turn column is the first turn of its Try Again run.
    const davinci = sql('openai:text-davinci-003', 'try-again', 10);
    expect(figure(davinci, 'all', 'firstTurnSuccessRate')?.value).toBe(7.4);
    expect(figure(sql('openai:text-davinci-003', 'single', 1), 'all', 'successRate')?.value).toBe(7.4);
    const hint = sql('openai:gpt-3.5-turbo', 'try-again', 10, true);
    expect(figure(hint, 'all', 'successRate')).toEqual({ value: 72.8, table: 'Table 5' });
    expect(figure(hint, 'all', 'firstTurnSuccessRate')).toEqual({ value: 67.9, table: 'Table 5' });
  });

  it('marks the cells recomputed from the upstream files', () => {
    const [match] = paperFiguresFor(sql('openai:text-bison-001', 'try-again', 10)).filter(
      (m) => m.group === 'all' && m.metric === 'successRate',
    );
    expect(match?.figure).toMatchObject({ value: 12.9, source: { recomputed: true } });
    expect(PAPER_FIGURES.filter((f) => f.source.recomputed).every((f) => f.source.note !== undefined)).toBe(
      true,
    );
  });

  it('maps one NL2Bash file system to its column, overall too', () => {
    const fs3: PaperSetting = {
      env: 'bash',
      dataset: 'nl2bash/fs3',
      model: 'gpt-3.5-turbo',
      strategy: 'try-again',
      maxTurns: 10,
      handicap: false,
    };
    expect(figure(fs3, 'all', 'successRate')?.value).toBe(45.0);
    expect(figure(fs3, 'fs3', 'successRate')?.value).toBe(45.0);
    expect(paperFiguresFor(fs3).some((m) => m.group === 'fs1')).toBe(false);
  });

  it('has nothing for settings the paper did not measure', () => {
    expect(paperFiguresFor(sql('openai:gpt-4o', 'try-again', 10))).toEqual([]);
    expect(paperFiguresFor(sql('openai:gpt-4', 'try-again', 5))).toEqual([]);
    expect(paperFiguresFor(sql('openai:gpt-4', 'tools', 10))).toEqual([]);
    expect(paperFiguresFor({ ...sql('openai:gpt-4', 'try-again', 10), dataset: 'wikisql/dev' })).toEqual([]);
    expect(paperFiguresFor({ ...sql('openai:gpt-4', 'try-again', 10), env: 'python' })).toEqual([]);
    // Table 5 has no gpt-4 row.
    expect(paperFiguresFor(sql('openai:gpt-4', 'try-again', 10, true))).toEqual([]);
  });

  it('keeps every figure to at most two decimals, rates within 0–100', () => {
    for (const f of PAPER_FIGURES) {
      expect(Math.round(f.value * 100) / 100).toBe(f.value);
      if (f.metric !== 'meanTurns') expect(f.value).toBeLessThanOrEqual(100);
    }
  });
});
