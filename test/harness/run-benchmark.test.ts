import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import type { Agent } from '../../src/agents/agent.js';
import { GoldAgent } from '../../src/agents/gold-agent.js';
import type { Dataset, Task } from '../../src/core/task.js';
import type { EnvFactory, SandboxEnvDefinition } from '../../src/envs/env-definition.js';
import { createEnvRegistry } from '../../src/envs/env-registry.js';
import { type EpisodeRecord, readEpisodeRecords } from '../../src/harness/episode-record.js';
import { type RunOptions, runBenchmark } from '../../src/harness/run-benchmark.js';
import { BwrapProvider } from '../../src/sandbox/index.js';
import { it } from '../support/fixtures.js';
import { bwrapMissing } from '../support/missing-components.js';

// runBenchmark in-process with real BashEnvs on the host image (no task file system to build).
const provider = new BwrapProvider();
const bash = createEnvRegistry().get('bash') as SandboxEnvDefinition;
const noBwrap = await bwrapMissing();

function task(index: number, gold: string, extra: Partial<Task> = {}): Task {
  return { id: `t${index}`, index, query: `task ${index}`, gold, meta: {}, ...extra };
}

/** Eight quick tasks; task 5 names a file system whose setup script does not exist (an infrastructure failure). */
const dataset: Dataset = {
  id: 'test/quick',
  env: 'bash',
  tasks: [
    task(0, 'echo zero', { group: 'even' }),
    task(1, 'echo one one', { group: 'odd' }),
    task(2, 'mkdir -p /work2 && echo two > /work2/two.txt', { group: 'even' }),
    task(3, 'printf "three\\n"', { group: 'odd' }),
    task(4, 'seq 4', { group: 'even' }),
    task(5, 'echo five', { group: 'odd', meta: { fileSystem: 'broken' } }),
    task(6, 'echo six; false', { group: 'even' }),
    task(7, 'echo seven > /seven.txt && cat /seven.txt', { group: 'odd' }),
  ],
  assets: { 'setupScript:broken': '/nonexistent/intercode-test/setup.sh' },
};

let opened: EnvFactory | undefined;

/** The bash env factory of this file's run (opened on first use: it needs the dataset). */
function factory(): EnvFactory {
  if (!opened) throw new Error('the env factory is opened in beforeAll');
  return opened;
}

function options(outDir: string, overrides: Partial<RunOptions> = {}): RunOptions {
  return {
    tasks: dataset.tasks,
    description: { dataset: dataset.id, env: 'bash', agent: 'gold', backend: 'bwrap' },
    createEnv: () => factory().create(),
    agent: new GoldAgent(bash.goldActions),
    concurrency: 1,
    outDir,
    resume: false,
    maxTurns: 10,
    scoreEveryTurn: true,
    ...overrides,
  };
}

const lines = (dir: string) => readEpisodeRecords(join(dir, 'episodes.jsonl'));
const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
const byTask = (records: readonly EpisodeRecord[]) =>
  Object.fromEntries(records.map((r) => [r.taskId, { reward: r.reward, error: r.error }]));

// The file's own cache (INTERCODE_CACHE_DIR) for everything below.
it.beforeAll(async ({ cache: _cache }) => {
  opened = await bash.open({ dataset, config: { kind: 'sandbox', provider } });
});

afterAll(async () => {
  await opened?.close();
  await provider.close();
});

describe('runBenchmark', () => {
  it('records a failing episode with its error and goes on with a fresh env', async ({ needs, tempDir }) => {
    needs(noBwrap);
    const out = tempDir('run');
    const seen: string[] = [];
    let started: [number, number] | undefined;
    const result = await runBenchmark(
      options(out, {
        reporters: [
          {
            onRunStart: ({ total, alreadyDone }) => {
              started = [total, alreadyDone];
            },
            onEpisodeEnd: (record) => seen.push(record.taskId),
          },
        ],
      }),
    );
    expect(started).toEqual([8, 0]);
    expect(result.interrupted).toBe(false);
    expect(seen).toEqual(dataset.tasks.map((t) => t.id));
    const records = lines(out);
    expect(records.map((r) => r.taskId)).toEqual(seen);
    const broken = records[5]!;
    expect(broken).toMatchObject({ taskId: 't5', success: false, turns: [], turnsTaken: 0, maxReward: 0 });
    expect(broken.error).toMatch(/ENOENT.*\/nonexistent\/intercode-test\/setup\.sh/);
    for (const record of records.filter((r) => r.taskId !== 't5')) {
      expect({ id: record.taskId, success: record.success }).toEqual({ id: record.taskId, success: true });
    }
    // A gold that exits non-zero still scores 1 (outputs match), but its turn is inadmissible.
    expect(records[6]!.turns[0]).toMatchObject({ admissible: false, reward: 1 });
    const summary = summaryOf(out);
    expect(summary).toEqual(result.summary);
    // The failed episode is counted apart, not as unsolved (it says nothing of the agent).
    expect(summary).toMatchObject({ n: 7, solved: 7, episodeErrors: 1, complete: true, maxTurns: 10 });
    expect(summary.errorRate).toBeCloseTo(1 / 7, 12);
    expect(summary.byGroup).toEqual({
      even: { n: 4, successRate: 1, meanReward: 1 },
      odd: { n: 3, successRate: 1, meanReward: 1 },
    });
  });

  it('gives the same records per task with 3 workers, in task order in the result', async ({
    needs,
    tempDir,
  }) => {
    needs(noBwrap);
    const one = await runBenchmark(options(tempDir('run')));
    const out = tempDir('run');
    const three = await runBenchmark(options(out, { concurrency: 3 }));
    expect(three.episodes.map((r) => r.taskId)).toEqual(dataset.tasks.map((t) => t.id));
    expect(byTask(lines(out))).toEqual(byTask(one.episodes));
    expect(three.summary).toMatchObject({ n: 7, solved: 7, episodeErrors: 1, complete: true });
  });

  it('stops on abort: episodes in flight are dropped, the summary says incomplete', async ({
    needs,
    tempDir,
  }) => {
    needs(noBwrap);
    const out = tempDir('run');
    const controller = new AbortController();
    const result = await runBenchmark(
      options(out, {
        signal: controller.signal,
        reporters: [
          {
            onEpisodeEnd: (record) => {
              if (record.taskId === 't1') controller.abort();
            },
          },
        ],
      }),
    );
    expect(result.interrupted).toBe(true);
    expect(lines(out).map((r) => r.taskId)).toEqual(['t0', 't1']);
    expect(summaryOf(out)).toMatchObject({ n: 2, complete: false });
    expect(provider.size).toBe(0);
  });

  it('resumes: skips finished tasks, drops a torn line, refuses a used directory without resume', async ({
    needs,
    tempDir,
  }) => {
    needs(noBwrap);
    const out = tempDir('run');
    const first = await runBenchmark(options(out, { tasks: dataset.tasks.slice(0, 3) }));
    expect(first.summary).toMatchObject({ n: 3, complete: true });
    const text = readFileSync(join(out, 'episodes.jsonl'), 'utf8');
    writeFileSync(join(out, 'episodes.jsonl'), `${text}{"taskId": "t3", "dat`);
    await expect(runBenchmark(options(out))).rejects.toThrow(/already holds episodes: pass --resume/);

    let started: [number, number] | undefined;
    const resumed = await runBenchmark(
      options(out, {
        resume: true,
        reporters: [
          {
            onRunStart: ({ total, alreadyDone }) => {
              started = [total, alreadyDone];
            },
          },
        ],
      }),
    );
    expect(started).toEqual([5, 3]);
    const records = lines(out);
    expect(records.map((r) => r.taskId)).toEqual(dataset.tasks.map((t) => t.id));
    expect(records.slice(0, 3)).toEqual(first.episodes);
    // The lines read back carry what the scorer saw (task 2's gold writes a file).
    expect(records[2]!.turns.at(-1)!.details).toMatchObject({
      goldOutput: '',
      agentChanges: [{ status: '??', path: 'work2/' }],
      evalChanges: [{ status: '??', path: 'work2/' }],
    });
    expect(resumed.episodes.map((r) => r.taskId)).toEqual(dataset.tasks.map((t) => t.id));
    expect(resumed.summary).toMatchObject({
      dataset: 'test/quick',
      n: 7,
      solved: 7,
      episodeErrors: 1,
      complete: true,
    });
  });

  it('refuses to resume a directory that holds episodes of another dataset', async ({ needs, tempDir }) => {
    needs(noBwrap);
    const out = tempDir('run');
    await runBenchmark(options(out, { tasks: dataset.tasks.slice(0, 2) }));
    const before = readFileSync(join(out, 'episodes.jsonl'), 'utf8');
    const other = { ...dataset, id: './test/quick' };
    await expect(
      runBenchmark(
        options(out, {
          description: { dataset: other.id, env: 'bash', agent: 'gold', backend: 'bwrap' },
          resume: true,
        }),
      ),
    ).rejects.toThrow(`${out} holds episodes of test/quick, not ./test/quick`);
    expect(readFileSync(join(out, 'episodes.jsonl'), 'utf8')).toBe(before);
  });

  it('truncates at maxTurns, and scores only submits without scoreEveryTurn', async ({ needs, tempDir }) => {
    needs(noBwrap);
    const stubborn: Agent = {
      name: 'stubborn',
      episode: () => ({ act: async ({ turn }) => (turn < 5 ? 'echo wrong' : 'submit') }),
    };
    const out = tempDir('run');
    const cut = await runBenchmark(
      options(out, { agent: stubborn, maxTurns: 2, tasks: dataset.tasks.slice(0, 1) }),
    );
    expect(cut.episodes[0]).toMatchObject({
      turnsTaken: 2,
      truncated: true,
      terminated: false,
      success: false,
    });
    expect(cut.episodes[0]!.turns[0]!.reward).toBeCloseTo(0.67, 12);

    const goldThenSubmit: Agent = {
      name: 'gold-submit',
      episode: (t) => ({ act: async ({ turn }) => [t.gold as string, 'submit'][turn] }),
    };
    const submitted = await runBenchmark(
      options(tempDir('run'), {
        agent: goldThenSubmit,
        scoreEveryTurn: false,
        tasks: dataset.tasks.slice(0, 2),
      }),
    );
    for (const record of submitted.episodes) {
      expect(record.turns.map((t) => [t.action, t.reward])).toEqual([
        [record.gold, 0],
        ['submit', 1],
      ]);
      expect(record).toMatchObject({ terminated: true, truncated: false, success: true, reward: 1 });
    }
  });
});
