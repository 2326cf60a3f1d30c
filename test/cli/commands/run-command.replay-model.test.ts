import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { expectOneLineError } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';
import { jsonLines } from '../../support/json-lines.js';
import { MIRROR, PROJECT_ROOT } from '../../support/project.js';

// `--agent llm --model replay:<file>` end to end on SQLite: the recorded answers go through the
// prompts, the real parsers, the env and the scorer, and must give the rewards of the action replay
// (`--agent replay`) of the same recording, turn by turn.
const SLOW = { timeoutMs: 180_000 };
const RESULTS = join(MIRROR, 'data/results/sql');
const TRY_AGAIN = join(RESULTS, 'gpt-4/ic_sql_multiturn_gpt-4_10_turns.json');
const PLAN_SOLVE = join(RESULTS, 'gpt-3.5/ic_sql_plan_solve.json');
const FIXTURE = join(PROJECT_ROOT, 'test/agents/llm/replay/fixtures/sql-gpt-4-try-again.json');

interface Turn {
  action: string;
  reward: number;
  admissible: boolean;
  llm?: { calls: { output: string; usage: { input: number; output: number } }[]; formatError?: string };
}
interface Episode {
  taskId: string;
  turns: Turn[];
  success: boolean;
  error?: string;
}

const episodesOf = (dir: string): Map<string, Episode> =>
  new Map(jsonLines<Episode>(join(dir, 'episodes.jsonl')).map((episode) => [episode.taskId, episode]));

describe('intercode run --model replay:', () => {
  it('plays spider/dev tasks 0-29 and 51 with the rewards of --agent replay, turn by turn', ({
    cli,
    tempDir,
  }) => {
    const dir = tempDir('replay-model');
    const replayOut = join(dir, 'replay');
    const llmOut = join(dir, 'llm');
    const replay = cli.run(
      [
        'run',
        'spider/dev',
        '--tasks',
        '0-29,51',
        '--agent',
        'replay',
        '--trajectories',
        TRY_AGAIN,
        '--out',
        replayOut,
      ],
      SLOW,
    );
    expect(replay.status).toBe(0);
    const llm = cli.run(
      [
        'run',
        'spider/dev',
        '--tasks',
        '0-29,51',
        '--strategy',
        'try-again',
        '--model',
        `replay:${TRY_AGAIN}`,
        '--concurrency',
        '2',
        '--out',
        llmOut,
      ],
      SLOW,
    );
    expect(llm.stderr).toBe('');
    expect(llm.status).toBe(0);
    const replayed = episodesOf(replayOut);
    const answered = episodesOf(llmOut);
    expect(answered.size).toBe(31);
    let notCode = 0;
    for (const [taskId, episode] of replayed) {
      const model = answered.get(taskId)!;
      expect(model.error).toBeUndefined();
      const rewards = model.turns.map((turn) => turn.reward);
      const expected = episode.turns.map((turn) => turn.reward);
      // Where the recording stopped before reward 1 here, the model's closing `submit` scores the
      // same state once more.
      const closing = model.turns.length === episode.turns.length + 1 ? model.turns.at(-1) : undefined;
      if (closing) {
        expect(closing.action).toBe('submit');
        expect(closing.reward).toBe(expected.at(-1));
      }
      expect(closing ? rewards.slice(0, -1) : rewards, `task ${taskId}`).toEqual(expected);
      expect(model.success).toBe(episode.success);
      for (const turn of model.turns.slice(0, episode.turns.length)) {
        expect(turn.llm?.calls).toHaveLength(1);
        expect(turn.llm?.calls[0]?.usage).toMatchObject({ input: 0, output: 0 });
        if (turn.llm?.formatError !== undefined) notCode += 1;
      }
    }
    // A turn the original did not take as code is a format error here too: as many as recorded
    // (task 51 holds one: `USE world_1;`).
    expect(notCode).toBeGreaterThan(0);
    expect(notCode).toBe(
      [...replayed.keys()].reduce((total, taskId) => total + upstreamNotCode(TRY_AGAIN, taskId), 0),
    );
  });

  it('plan-solve: one turn per recorded step, the plan in the first turn', ({ cli, tempDir }) => {
    const out = join(tempDir('replay-plan'), 'run');
    const result = cli.run(
      [
        'run',
        'spider/dev',
        '--tasks',
        '852-861',
        '--strategy',
        'plan-solve',
        '--model',
        `replay:${PLAN_SOLVE}`,
        '--out',
        out,
      ],
      SLOW,
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const logs = (
      JSON.parse(readFileSync(PLAN_SOLVE, 'utf8')) as {
        logs: Record<string, { turn_history: { steps: string[] } }>;
      }
    ).logs;
    for (const [taskId, episode] of episodesOf(out)) {
      const steps = logs[taskId]!.turn_history.steps;
      const solvedAt = episode.turns.findIndex((turn) => turn.reward === 1);
      expect(episode.turns.length, `task ${taskId}`).toBe(solvedAt >= 0 ? solvedAt + 1 : steps.length);
      const calls = episode.turns[0]?.llm?.calls ?? [];
      expect(calls).toHaveLength(2);
      expect(calls[0]?.output.startsWith(`1. ${steps[0]}`)).toBe(true);
    }
  });

  it('plays only the tasks the recording holds, and says so (with --cache too)', ({ cli, tempDir }) => {
    const dir = tempDir('replay-subset');
    const out = join(dir, 'run');
    // Also behind the response cache, which never caches the replay model.
    const result = cli.run(
      ['run', 'spider/dev', '--model', `replay:${FIXTURE}`, '--cache', join(dir, 'cache'), '--out', out],
      SLOW,
    );
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('replaying the 3 of 1034 tasks');
    expect([...episodesOf(out).keys()].sort()).toEqual(['0', '1', '51']);
  });

  it('refuses a missing recording in one line, before any episode', ({ cli, tempDir }) => {
    const out = join(tempDir('replay-missing'), 'run');
    const result = cli.run(['run', 'spider/dev', '--model', 'replay:/no/such/recording.json', '--out', out]);
    expectOneLineError(result, /recording\.json/);
  });
});

/** Turns of a recorded task the original did not take as code (its format reminder observed). */
function upstreamNotCode(file: string, taskId: string): number {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Record<
    string,
    { turn_history: { observations: string[] } }
  >;
  return (data[taskId]?.turn_history.observations ?? []).filter((observation) =>
    /^Format your SQL command as follows/.test(observation),
  ).length;
}
