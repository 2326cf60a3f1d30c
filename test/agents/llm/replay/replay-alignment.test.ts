import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../../src/agents/llm/model-client.js';
import type { ParsedAction } from '../../../../src/agents/llm/parsers/parsed-action.js';
import { actionParser, planParser, reactParser } from '../../../../src/agents/llm/parsers/parsed-action.js';
import type { EnvLanguage } from '../../../../src/agents/llm/prompts/prompt-set.js';
import { recordedMove } from '../../../../src/agents/llm/replay/recorded-move.js';
import { ReplayModel } from '../../../../src/agents/llm/replay/replay-model.js';
import { REACT_STOP } from '../../../../src/agents/llm/strategies/react-strategy.js';
import { MIRROR } from '../../../support/project.js';

// Every recorded turn of the paper's runs that the fidelity figures replay, written by the replay
// model and read back by the real parsers: a turn the original ran must parse to the same code, a
// turn it did not take as code must be rejected, and a plan must split into the recorded steps, so
// the replayed episodes keep the recorded turn sequence.
const RESULTS = join(MIRROR, 'data', 'results');

const FILES: readonly { file: string; env: EnvLanguage; strategy: string }[] = [
  { file: 'sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json', env: 'sql', strategy: 'try-again' },
  { file: 'sql/gpt-3.5/ic_sql_react_10_turns.json', env: 'sql', strategy: 'react' },
  { file: 'sql/gpt-3.5/ic_sql_plan_solve.json', env: 'sql', strategy: 'plan-solve' },
  ...[1, 2, 3, 4].map((n) => ({
    file: `bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_${n}.json`,
    env: 'bash' as const,
    strategy: 'try-again',
  })),
];

/** The turns where the original ran prose as code (read in the recordings: "It seems like …"). */
const PROSE_RUN: Readonly<Record<string, readonly string[]>> = {
  'sql/gpt-3.5/ic_sql_react_10_turns.json': ['530/4', '530/6', '530/8', '547/5', '774/2'],
};

function requestOf(
  taskId: string,
  turn: number,
  env: string,
  strategy: string,
  purpose?: string,
): ModelRequest {
  return {
    messages: [],
    context: { taskId, turn, env, strategy, ...(purpose ? { purpose } : {}) },
    ...(strategy === 'react' ? { stop: REACT_STOP } : {}),
  };
}

/** What the original ran for a recorded action: the code inside a ReAct `execute[…]`, else the action. */
function ranCode(move: ReturnType<typeof recordedMove>): string | undefined {
  return move.kind === 'code' ? move.code : undefined;
}

describe.skipIf(!existsSync(RESULTS))('replayed answers read back by the real parsers', () => {
  for (const { file, env, strategy } of FILES) {
    it(`${file} (${strategy})`, async () => {
      const model = new ReplayModel(join(RESULTS, file));
      const parseAction = actionParser(env);
      const parseReact = reactParser(env);
      const parsePlan = planParser();
      const misaligned: string[] = [];
      const proseRun: string[] = [];
      let turns = 0;
      for (const episode of model.episodes) {
        if (strategy === 'plan-solve') {
          const plan = await model.complete(requestOf(episode.key, 0, env, strategy, 'plan'));
          const steps = parsePlan(plan.text);
          if (steps.length !== episode.actions.length)
            misaligned.push(
              `${episode.key}: plan of ${steps.length} steps, ${episode.actions.length} recorded`,
            );
        }
        for (let turn = 0; turn < episode.actions.length; turn += 1) {
          const move = recordedMove(episode, turn);
          if (move.kind === 'end') break;
          turns += 1;
          const purpose = strategy === 'plan-solve' ? 'step' : undefined;
          const answer = await model.complete(requestOf(episode.key, turn, env, strategy, purpose));
          const parsed: ParsedAction =
            strategy === 'react' ? parseReact(answer.text).action : parseAction(answer.text);
          const code = ranCode(move);
          const expected = move.kind === 'text' ? 'invalid' : move.kind;
          if (
            parsed.kind === 'invalid' &&
            code !== undefined &&
            !/^\s*[A-Z]+\s/.test(code) &&
            env === 'sql'
          ) {
            // Prose inside `execute[…]`: the original sent it to the database (a syntax error);
            // our parser never runs text that is not code.
            proseRun.push(`${episode.key}/${turn}`);
          } else if (parsed.kind !== expected) {
            misaligned.push(
              `${episode.key}/${turn}: ${expected} read as ${parsed.kind}: ${answer.text.slice(0, 120)}`,
            );
          } else if (code !== undefined && parsed.kind === 'code' && parsed.code !== sqlCut(env, code)) {
            misaligned.push(
              `${episode.key}/${turn}: ran ${JSON.stringify(code)}, parsed ${JSON.stringify(parsed.code)}`,
            );
          }
        }
      }
      expect(turns).toBeGreaterThan(100);
      expect(misaligned).toEqual([]);
      expect(proseRun).toEqual(PROSE_RUN[file] ?? []);
    });
  }
});

/** The original cut SQL at its first `;` and trimmed it. */
function sqlCut(env: EnvLanguage, code: string): string {
  return env === 'sql' ? code.split(';')[0]!.trim() : code;
}
