import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionParser } from '../../../../src/agents/llm/parsers/action-parser.js';
import { firstSqlWord, SQL_KEYWORDS } from '../../../../src/agents/llm/parsers/first-sql-statement.js';
import { planParser } from '../../../../src/agents/llm/parsers/plan-parser.js';
import { reactParser } from '../../../../src/agents/llm/parsers/react-parser.js';
import { numberedPlan } from '../../../../src/agents/llm/prompts/plan-demonstrations.js';
import { MIRROR } from '../../../support/project.js';
import { skipIfMissing } from '../../../support/skip-if-missing.js';

/**
 * The parsers against the paper's recorded model behaviour (data/results of the upstream mirror): a
 * recorded action, written back the way a model writes it, must parse the way the original's loop
 * took it. This is what lets a `replay:` model reproduce the paper's figures through our parsers.
 */
const RESULTS = join(MIRROR, 'data', 'results');

interface Episode {
  turn_history: { actions: string[]; observations: unknown[]; steps?: string[] };
}

function episodes(file: string): Episode[] {
  const data = JSON.parse(readFileSync(join(RESULTS, file), 'utf8')) as Record<string, unknown>;
  return Object.values((data.logs ?? data) as Record<string, Episode>);
}

function missing(files: readonly string[]): string | undefined {
  const absent = files.filter((file) => !existsSync(join(RESULTS, file)));
  return absent.length > 0 ? `the upstream mirror lacks data/results/${absent[0]}` : undefined;
}

const FENCED: readonly (readonly [file: string, env: 'sql' | 'bash'])[] = [
  ['sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json', 'sql'],
  ['sql/gpt-3.5/ic_sql_multiturn_gpt-3.5_10_turns.json', 'sql'],
  ...[1, 2, 3, 4].map((fs) => [`bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_${fs}.json`, 'bash'] as const),
];

const REACT: readonly (readonly [file: string, env: 'sql' | 'bash'])[] = [
  ['sql/gpt-3.5/ic_sql_react_10_turns.json', 'sql'],
  ...[1, 2, 3, 4].map((fs) => [`bash/gpt-3.5/ic_bash_react_10_turns_fs_${fs}.json`, 'bash'] as const),
];

describe('recorded upstream actions', () => {
  it('try-again actions in a fence parse back to themselves (SQL: every statement; prose refused)', (context) => {
    skipIfMissing(context.skip, missing(FENCED.map(([file]) => file)));
    let checked = 0;
    for (const [file, env] of FENCED) {
      const parse = actionParser(env);
      for (const episode of episodes(file)) {
        for (const action of episode.turn_history.actions) {
          if (action.trim() === '' || action === 'blocked') continue;
          const parsed = parse(`\`\`\`${env}\n${action}\n\`\`\``);
          const isStatement = env === 'bash' || SQL_KEYWORDS.has(firstSqlWord(action.trim()));
          // The original cut SQL at its first `;` (the actions it refused are logged uncut).
          const ran = env === 'sql' ? action.split(';')[0]!.trim() : action.trim();
          if (isStatement) expect(parsed, `${file}: ${action}`).toEqual({ kind: 'code', code: ran });
          else expect(parsed.kind, `${file}: ${action}`).toBe('invalid');
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(7000);
  });

  it('ReAct actions run where the original ran them, except prose', (context) => {
    skipIfMissing(context.skip, missing(REACT.map(([file]) => file)));
    // The original ran whatever was inside execute[...]; we refuse prose ("It seems like the table …"):
    // those turns get a format reminder instead of a SQL syntax error.
    const weRunTheyRefused: string[] = [];
    const weRefuseTheyRan: string[] = [];
    let checked = 0;
    for (const [file, env] of REACT) {
      const parse = reactParser(env);
      for (const episode of episodes(file)) {
        const { actions, observations } = episode.turn_history;
        actions.forEach((action, turn) => {
          const observation = observations[turn];
          if (observation === undefined || action === 'submit') return;
          const refused = String(observation).includes('action did not contain');
          const parsed = parse(`Thought: recorded\nAction: ${action}`).action;
          if (parsed.kind !== 'invalid' && refused) weRunTheyRefused.push(action);
          if (parsed.kind === 'invalid' && !refused) weRefuseTheyRan.push(action);
          checked += 1;
        });
      }
    }
    expect(checked).toBeGreaterThan(5000);
    expect(weRunTheyRefused).toEqual([]);
    expect(weRefuseTheyRan.length).toBeLessThanOrEqual(5);
    for (const action of weRefuseTheyRan) {
      const inside = /^execute\[([\s\S]*)\]$/.exec(action)?.[1] ?? '';
      expect(SQL_KEYWORDS.has(firstSqlWord(inside.trim())), action).toBe(false);
    }
  });

  it('Plan & Solve plans, written as numbered lists, parse back to their steps', (context) => {
    const files = [
      'sql/gpt-3.5/ic_sql_plan_solve.json',
      ...[1, 2, 3, 4].map((fs) => `bash/gpt-3.5/ic_bash_plan_solve_fs_${fs}.json`),
    ];
    skipIfMissing(context.skip, missing(files));
    const differ: string[] = [];
    let plans = 0;
    for (const file of files) {
      for (const episode of episodes(file)) {
        const steps = (episode.turn_history.steps ?? []).map((step) => step.replace(/\s+/g, ' ').trim());
        if (steps.length === 0) continue;
        const parsed = planParser()(numberedPlan(steps));
        if (JSON.stringify(parsed) !== JSON.stringify(steps.filter((step) => step !== ''))) {
          differ.push(`${file}: ${JSON.stringify(steps)} -> ${JSON.stringify(parsed)}`);
        }
        plans += 1;
      }
    }
    expect(plans).toBeGreaterThan(1000);
    expect(differ).toEqual([]);
  });
});
