import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect } from 'vitest';
import type { TurnContext } from '../../../src/agents/agent.js';
import { GoldAgent } from '../../../src/agents/gold-agent.js';
import { matchRecorded, readRecordedTrajectories } from '../../../src/agents/replay/recorded-trajectories.js';
import { ReplayAgent } from '../../../src/agents/replay/replay-agent.js';
import { DatasetError } from '../../../src/core/errors.js';
import type { Task } from '../../../src/core/task.js';
import { it } from '../../support/fixtures.js';
import { MIRROR } from '../../support/project.js';

// The paper's recorded trajectories (data/results of the upstream repository) from the mirror, and
// this project's own episodes.jsonl.
const RESULTS = join(MIRROR, 'data', 'results');

function resultFiles(): string[] {
  return (readdirSync(RESULTS, { recursive: true }) as string[])
    .filter((path) => path.endsWith('.json'))
    .map((path) => join(RESULTS, path))
    .sort();
}

/** The entries of a results file as stored: a bare object keyed by task, or `{ meta, logs }`. */
function storedEntries(path: string): Record<string, Record<string, unknown>> {
  const data = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  return (('meta' in data && data.logs) || data) as Record<string, Record<string, unknown>>;
}

function task(id: string, query: string, index = 0): Task {
  return { id, index, query, meta: {} };
}

function context(t: Task, turn: number): TurnContext {
  return { task: t, turn, history: [], observation: { text: t.query, durationMs: 0 }, reward: 0 };
}

/** Plays a policy without an env: the actions it gives until it stops (at most `limit`). */
async function actionsOf(agent: GoldAgent | ReplayAgent, t: Task, limit = 20): Promise<string[]> {
  const policy = agent.episode(t);
  const actions: string[] = [];
  for (let turn = 0; turn < limit; turn += 1) {
    const action = await policy.act(context(t, turn));
    if (action === undefined) break;
    actions.push(action as string);
  }
  return actions;
}

function errorOf(run: () => unknown): DatasetError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DatasetError);
    return error as DatasetError;
  }
  throw new Error('expected a DatasetError');
}

describe('readRecordedTrajectories on the upstream results', () => {
  const files = resultFiles();

  it('finds the results of all four environments', () => {
    const kinds = new Set(files.map((file) => relative(RESULTS, file).split('/')[0]));
    expect([...kinds].sort()).toEqual(['bash', 'ctf', 'python', 'sql']);
    expect(files.length).toBeGreaterThanOrEqual(50);
  });

  it('reads every episode of every file, with string actions', () => {
    for (const file of files) {
      const name = relative(RESULTS, file);
      const episodes = readRecordedTrajectories(file);
      const stored = Object.entries(storedEntries(file));
      expect({ name, n: episodes.length }).toEqual({ name, n: stored.length });
      expect(episodes.length, name).toBeGreaterThan(0);
      for (const episode of episodes) {
        expect(episode.actions.every((action) => typeof action === 'string')).toBe(true);
        expect(typeof episode.query, name).toBe('string');
      }
      // Keys are the stored task ids (or the object keys), in file order.
      expect(episodes.map((episode) => episode.key)).toEqual(
        stored.map(([key, entry]) => String(entry.task_id ?? entry.query_idx ?? key)),
      );
      const first = stored[0]![1];
      const history = first.turn_history as { actions: string[] } | undefined;
      if (history) expect(episodes[0]!.actions).toEqual(history.actions);
    }
  });

  it('unwraps the `{meta, logs}` files of Plan & Solve', () => {
    const file = join(RESULTS, 'bash/gpt-3.5/ic_bash_plan_solve_fs_2.json');
    const data = JSON.parse(readFileSync(file, 'utf8')) as { meta: unknown; logs: Record<string, unknown> };
    expect(data.meta).toBeDefined();
    const episodes = readRecordedTrajectories(file);
    expect(episodes).toHaveLength(Object.keys(data.logs).length);
    expect(episodes).toHaveLength(53);
    expect(
      readRecordedTrajectories(join(RESULTS, 'sql/gpt-3.5/ic_sql_plan_solve_refine_3_turns.json')),
    ).toHaveLength(44);
  });

  it('reads the human SQL file (saved env trajectories keyed by query_idx)', () => {
    const episodes = readRecordedTrajectories(
      join(RESULTS, 'sql/human/ic_sql_multiturn_human_10_turns.json'),
    );
    expect(episodes).toHaveLength(15);
    const first = episodes.find((episode) => episode.key === '809')!;
    expect(first.query).toMatch(/^Which languages are spoken by only one country/);
    expect(first.actions.slice(0, 3)).toEqual(['show tables;', 'desc country;', 'desc countrylanguage;']);
    expect(first.actions).toHaveLength(11);
  });

  it('reads the CTF files with their older `cmd …` actions', () => {
    const episodes = readRecordedTrajectories(join(RESULTS, 'ctf/ic_ctf_gpt-4_25_turns.json'));
    expect(episodes.map((episode) => episode.key)).toEqual(['0', '1', '2', '3']);
    expect(episodes[0]!.actions[0]).toBe('cmd /bin/bash -c "cat unpackme.flag.py"');
  });

  it('ends a replay at a recorded `blocked` action', async () => {
    const file = join(RESULTS, 'bash/chat-bison-001/ic_bash_multiturn_chat-bison-001_10_turns_fs_1.json');
    const recorded = readRecordedTrajectories(file).find((episode) => episode.key === '0')!;
    expect(recorded.actions).toEqual([
      "find /testbed -type f -name '*.java' -exec md5sum {} + | sort | uniq -d",
      'blocked',
    ]);
    const agent = new ReplayAgent([file]);
    // Matched by query text first (task ids of our datasets need not be upstream's keys).
    const t = task('fs1/0', recorded.query!);
    expect(agent.has(t)).toBe(true);
    expect(await actionsOf(agent, t)).toEqual([recorded.actions[0]]);
    // A task that is not in the file plays nothing.
    const missing = task('nope', 'not a recorded query');
    expect(agent.has(missing)).toBe(false);
    expect(await actionsOf(agent, missing)).toEqual([]);
  });
});

describe('readRecordedTrajectories on other files', () => {
  it("reads this project's episodes.jsonl", async ({ tempDir }) => {
    const dir = tempDir('trajectories');
    const file = join(dir, 'episodes.jsonl');
    const turn = (action: string) => ({
      action,
      observation: '',
      reward: 0,
      admissible: true,
      durationMs: 1,
    });
    writeFileSync(
      file,
      [
        JSON.stringify({ taskId: 'a', index: 0, query: 'first?', turns: [turn('ls'), turn('submit')] }),
        '',
        // Lines written before schemaVersion existed and lines with it read alike.
        JSON.stringify({ schemaVersion: 1, taskId: 'b', index: 1, query: 'second?', turns: [] }),
        JSON.stringify({ index: 2, turns: [turn('pwd')] }),
        '',
      ].join('\n'),
    );
    const episodes = readRecordedTrajectories(file);
    expect(episodes).toEqual([
      { key: 'a', query: 'first?', actions: ['ls', 'submit'] },
      { key: 'b', query: 'second?', actions: [] },
      { key: '2', actions: ['pwd'] },
    ]);
    expect(matchRecorded(episodes, task('b', 'second?'))?.key).toBe('b');
    // By id when the query differs.
    expect(matchRecorded(episodes, task('a', 'reworded'))?.key).toBe('a');
    expect(matchRecorded(episodes, task('z', 'unknown'))).toBeUndefined();
    // Two tasks with one query text: each gets its own episode (by id), not the first with the text.
    const twins = [
      { key: '30', query: 'same?', actions: ['a'] },
      { key: '31', query: 'same?', actions: ['b'] },
    ];
    expect(matchRecorded(twins, task('31', 'same?'))?.actions).toEqual(['b']);
    expect(matchRecorded(twins, task('7', 'same?'))?.actions).toEqual(['a']);
    // A task sharing the query of an episode another task owns (by id) gets none of it.
    expect(matchRecorded(twins, task('7', 'same?'), new Set([twins[0]!, twins[1]!]))).toBeUndefined();
    expect(await actionsOf(new ReplayAgent([file]), task('a', 'first?'))).toEqual(['ls', 'submit']);
  });

  it('reads a single saved env trajectory', ({ tempDir }) => {
    const file = join(tempDir('trajectories'), 'log_20230601.json');
    writeFileSync(
      file,
      JSON.stringify({
        environment: 'ic_bash',
        query_idx: 7,
        query: 'q?',
        gold: 'ls',
        reward: 1,
        trajectory: [
          { action: 'ls', observation: 'x' },
          { action: 'submit', observation: null },
        ],
        info: {},
      }),
    );
    expect(readRecordedTrajectories(file)).toEqual([{ key: '7', query: 'q?', actions: ['ls', 'submit'] }]);
  });

  it('fails with a one-line DatasetError naming the file', ({ tempDir }) => {
    const dir = tempDir('trajectories');
    const cases: [string, string, RegExp][] = [
      ['missing.json', '', /cannot read it \(ENOENT\)/],
      ['bad.json', '{"0": {"turn_history": ', /is not valid JSON/],
      ['array.json', '[1, 2]', /is not a JSON object/],
      ['none.json', '{"meta": {}, "logs": {"0": {"query": "q"}}}', /holds no recognisable episodes/],
      ['empty-object.json', '{}', /holds no recognisable episodes/],
      ['bad.jsonl', '{"taskId": "a", "turns": []}\n{"taskId": \n', /line 2 is not valid JSON/],
      ['no-turns.jsonl', '{"taskId": "a"}\n', /line 1 is not a valid recorded episode: turns: missing$/],
      [
        'bad-action.jsonl',
        '\n{"taskId": "a", "turns": [{"action": "ls"}, {"action": 3}]}\n',
        /line 2 is not a valid recorded episode: turns\.1\.action: Invalid input: expected string, received number$/,
      ],
      [
        'bad-field.jsonl',
        '{"taskId": 7, "turns": []}\n',
        /line 1 is not a valid recorded episode: taskId: Invalid input: expected string/,
      ],
      [
        'newer.jsonl',
        '{"taskId": "a", "turns": []}\n{"schemaVersion": 2, "taskId": "b", "turns": []}\n',
        /line 2 has schemaVersion 2, newer than this intercode reads \(1\): upgrade intercode/,
      ],
      ['empty.jsonl', '\n\n', /holds no episodes/],
    ];
    for (const [name, content, why] of cases) {
      const path = join(dir, name);
      if (name !== 'missing.json') writeFileSync(path, content);
      const error = errorOf(() => readRecordedTrajectories(path));
      expect(error.code).toBe('DATASET_INVALID');
      expect(error.message, name).toMatch(why);
      expect(error.message).toContain(path);
      expect(error.message).not.toContain('\n');
      // The replay agent reads its files when made, so a bad file fails before any episode.
      expect(() => new ReplayAgent([path])).toThrow(DatasetError);
    }
  });
});

describe('GoldAgent', () => {
  it("plays a task's gold actions in order, then stops", async () => {
    const agent = new GoldAgent((t) => [`echo ${t.id}`, 'submit']);
    expect(agent.name).toBe('gold');
    expect(await actionsOf(agent, task('x', 'q'))).toEqual(['echo x', 'submit']);
  });
});
