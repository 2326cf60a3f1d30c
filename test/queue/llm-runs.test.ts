import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, describe, expect } from 'vitest';
import type { Task } from '../../src/core/task.js';
import { demoSqlDataset } from '../../src/datasets/demo/demo-sql.js';
import { type RecordedLlmRequest, ScriptedLlmServer, type ScriptStep } from '../../src/testkit/index.js';
import { test } from '../support/fixtures.js';
import { jsonLines } from '../support/json-lines.js';
import { redisMissing } from '../support/missing-components.js';
import { PROJECT_ROOT } from '../support/project.js';
import { waitFor } from '../support/wait-for.js';
import { startWorkers, stopWorkers } from './queue-test-run.js';

// `intercode run --redis … --model …`: language-model runs played by `intercode worker` processes on
// a private redis-server; the model is the paper's recorded outputs (replay:) or a ScriptedLlmServer
// on 127.0.0.1 that each worker reaches with the key of its own environment.
const LONG = 240_000;
const KEY = 'sk-queue-test-key';
const FIXTURE = join(PROJECT_ROOT, 'test/agents/llm/replay/fixtures/sql-gpt-4-try-again.json');
const servers: ScriptedLlmServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

interface Episode {
  taskId: string;
  turns: {
    action: string;
    reward: number;
    llm?: { calls: { prefix?: string; costUsd: number | null }[] };
  }[];
  success: boolean;
  usage?: { input: number; output: number };
  error?: string;
}

const episodesOf = (dir: string) => jsonLines<Episode>(join(dir, 'episodes.jsonl'));
/** What must be equal between two runs of the same recording: per task, actions, rewards and turns. */
const played = (dir: string) =>
  Object.fromEntries(
    episodesOf(dir).map((episode) => [
      episode.taskId,
      {
        actions: episode.turns.map((turn) => turn.action),
        rewards: episode.turns.map((turn) => turn.reward),
      },
    ]),
  );

/** Every prefix named by a record of `dir` is in its prefixes.json; returns how many names there are. */
function expectPrefixesResolve(dir: string): number {
  const prefixes = JSON.parse(readFileSync(join(dir, 'prefixes.json'), 'utf8')) as Record<string, unknown>;
  const named = new Set(
    episodesOf(dir).flatMap((episode) =>
      episode.turns.flatMap((turn) => (turn.llm?.calls ?? []).map((call) => call.prefix)),
    ),
  );
  named.delete(undefined);
  expect(named.size).toBeGreaterThan(0);
  for (const name of named) expect(Object.keys(prefixes)).toContain(name);
  return named.size;
}

/** Answers a task's first request with a wrong query, later ones with its gold. */
function goldScript(tasks: readonly Task[], usage = (_task: Task) => ({ input: 200, output: 30 })) {
  return (request: RecordedLlmRequest): ScriptStep => {
    const text = JSON.stringify((request.body as { messages?: unknown }).messages ?? '');
    const task = [...tasks]
      .reverse()
      .find((candidate) => text.includes(JSON.stringify(candidate.query).slice(1, -1)));
    if (task === undefined) return { status: 400, errorMessage: 'no task in the request' };
    const answered = ((request.body as { messages: { role: string }[] }).messages ?? []).some(
      (message) => message.role === 'assistant',
    );
    return {
      text: `Let me try.\n\`\`\`sql\n${answered ? String(task.gold) : 'SELECT 1'}\n\`\`\``,
      usage: usage(task),
    };
  };
}

describe('intercode run --redis with a language model', () => {
  test('--model replay: over 2 workers plays what a local run plays, task by task', {
    timeout: LONG,
  }, async ({ cli, tempDir, startRedis, needs }) => {
    needs(redisMissing());
    const dir = tempDir('queue-llm-replay');
    const args = ['run', 'spider/dev', '--model', `replay:${FIXTURE}`, '--json'];
    const local = cli.run([...args, '--out', join(dir, 'local')], { timeoutMs: LONG });
    expect(local.status, local.stderr).toBe(0);
    const redis = await startRedis();
    const workers = startWorkers(cli, redis.url, 2);
    const out = join(dir, 'dist');
    const result = await cli.start([...args, '--redis', redis.url, '--out', out]).done;
    await stopWorkers(workers);
    expect(result.status, result.stderr).toBe(0);
    const expected = played(join(dir, 'local'));
    expect(Object.keys(expected).sort()).toEqual(['0', '1', '51']);
    expect(played(out)).toEqual(expected);
    expect(episodesOf(out).filter((episode) => episode.error !== undefined)).toEqual([]);
    expectPrefixesResolve(out);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    const localSummary = JSON.parse(readFileSync(join(dir, 'local', 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ agent: 'llm', strategy: 'try-again', n: 3, complete: true });
    expect(summary.solved).toBe(localSummary.solved);
  });

  test('--model openai: over 2 workers with the key in their environment: prefixes, report, export', {
    timeout: LONG,
  }, async ({ cli, tempDir, startRedis, needs }) => {
    needs(redisMissing());
    const tasks = (await demoSqlDataset().load()).tasks.slice(0, 6);
    const server = await ScriptedLlmServer.start(goldScript(tasks), { apiKey: KEY, models: ['gpt-4o'] });
    servers.push(server);
    const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: KEY };
    const redis = await startRedis();
    const workers = [0, 1].map(() =>
      cli.start(['worker', '--redis', redis.url, '--concurrency', '2', '--grace', '5'], { env }),
    );
    const out = join(tempDir('queue-llm-openai'), 'run');
    const result = await cli.start(
      [
        'run',
        'demo/sql',
        '--tasks',
        '0-5',
        '--model',
        'openai:gpt-4o',
        '--redis',
        redis.url,
        '--out',
        out,
        '--json',
      ],
      { env },
    ).done;
    await stopWorkers(workers);
    expect(result.status, result.stderr).toBe(0);
    const episodes = episodesOf(out);
    expect(episodes.map((episode) => episode.taskId).sort()).toEqual(tasks.map((task) => task.id).sort());
    for (const episode of episodes) {
      expect(episode.error).toBeUndefined();
      expect(episode.success).toBe(true);
      expect(episode.usage).toMatchObject({ input: 400, output: 60 });
    }
    expectPrefixesResolve(out);
    expect(JSON.parse(result.stdout)).toMatchObject({
      agent: 'llm',
      model: 'openai:gpt-4o',
      n: 6,
      solved: 6,
    });
    // Two model requests per episode, none other (the checks ask the model list).
    expect(server.modelRequestCount).toBe(12);
    const report = cli.run(['report', out, '--json']);
    expect(report.status, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/"input":\s*2400/);
    const exported = cli.run(['export', out, '--format', 'atif']);
    expect(exported.status, exported.stderr).toBe(0);
    expect(exported.stdout.trim().split('\n')).toHaveLength(6);
  });

  test('a worker without the key refuses the run (printed by the gatherer); one with it plays', {
    timeout: LONG,
  }, async ({ cli, tempDir, startRedis, needs }) => {
    needs(redisMissing());
    const tasks = (await demoSqlDataset().load()).tasks.slice(0, 2);
    const server = await ScriptedLlmServer.start(goldScript(tasks), { apiKey: KEY, models: ['gpt-4o'] });
    servers.push(server);
    const redis = await startRedis();
    const keyless = cli.start(['worker', '--redis', redis.url, '--grace', '5']);
    const out = join(tempDir('queue-llm-keyless'), 'run');
    const run = cli.start(
      [
        'run',
        'demo/sql',
        '--tasks',
        '0-1',
        '--model',
        'openai:gpt-4o',
        '--base-url',
        server.url,
        '--api-key-env',
        'QUEUE_TEST_LLM_KEY',
        '--redis',
        redis.url,
        '--out',
        out,
        '--json',
      ],
      { env: { QUEUE_TEST_LLM_KEY: KEY } },
    );
    let stderr = '';
    run.child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
    });
    await waitFor(() => stderr.includes('refused'), 60_000, 'the keyless worker to refuse the run');
    expect(stderr).toMatch(
      new RegExp(
        `worker [^ ]+:${keyless.child.pid} refused: --api-key-env: the environment variable QUEUE_TEST_LLM_KEY is not set`,
      ),
    );
    expect(episodesOf(out)).toEqual([]);
    const keyed = cli.start(['worker', '--redis', redis.url, '--grace', '5'], {
      env: { QUEUE_TEST_LLM_KEY: KEY },
    });
    const result = await run.done;
    await stopWorkers([keyless, keyed]);
    expect(result.status, result.stderr).toBe(0);
    expect(
      episodesOf(out)
        .map((episode) => [episode.taskId, episode.success])
        .sort(),
    ).toEqual(tasks.map((task) => [task.id, true]).sort());
  });

  test('--max-cost: the gatherer queues episodes while they fit under the cap, then ends as a local run', {
    timeout: LONG,
  }, async ({ cli, tempDir, startRedis, needs }) => {
    needs(redisMissing());
    const tasks = (await demoSqlDataset().load()).tasks.slice(0, 6);
    const server = await ScriptedLlmServer.start(goldScript(tasks), { apiKey: KEY, models: ['gpt-4o'] });
    servers.push(server);
    const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: KEY };
    const redis = await startRedis();
    const worker = cli.start(['worker', '--redis', redis.url, '--grace', '5'], { env });
    const out = join(tempDir('queue-llm-cost'), 'run');
    // gpt-4o: an episode is two calls of 200 + 30 tokens, $0.0016. One worker, one at a time: the first
    // episode alone (no estimate yet), then while spent + those in the queue + one more stays under $0.005.
    const result = await cli.start(
      [
        'run',
        'demo/sql',
        '--tasks',
        '0-5',
        '--model',
        'openai:gpt-4o',
        '--max-cost',
        '0.005',
        '--redis',
        redis.url,
        '--out',
        out,
      ],
      { env },
    ).done;
    const queue = new Queue('intercode', { connection: { host: '127.0.0.1', port: redis.port } });
    queue.on('error', () => {});
    const left = await queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
    await queue.close();
    await stopWorkers([worker]);
    expect(result.status, result.stderr).toBe(0);
    // After the first episode ($0.0016), two more fit under $0.005 and are played; a fourth could cross.
    expect(result.stderr).toMatch(
      /^intercode: stopped before the cost cap: --max-cost \$0\.0050: \$0\.0016 spent and 2 in flight/m,
    );
    expect(result.stdout).toMatch(/stopped before the end: --max-cost/);
    const episodes = episodesOf(out);
    expect(episodes.map((episode) => episode.taskId)).toEqual(tasks.slice(0, 3).map((task) => task.id));
    const calls = episodes.flatMap((episode) => episode.turns.flatMap((turn) => turn.llm?.calls ?? []));
    expect(calls.reduce((sum, call) => sum + (call.costUsd ?? 1), 0)).toBeCloseTo(0.0048, 6);
    expect(Object.values(left).reduce((sum, count) => sum + count, 0)).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ complete: false, stopReason: expect.stringMatching(/^--max-cost/) });
    // Two model requests per episode played, none for an episode removed from the queue.
    expect(server.modelRequestCount).toBe(2 * episodes.length);
  });

  test('--max-cost: a costlier episode than estimated removes the waiting jobs that could cross the cap', {
    timeout: LONG,
  }, async ({ cli, tempDir, startRedis, needs }) => {
    needs(redisMissing());
    const tasks = (await demoSqlDataset().load()).tasks.slice(0, 6);
    // The first task's episode costs $0.00016, the others' $0.016 each.
    const server = await ScriptedLlmServer.start(
      goldScript(tasks, (task) =>
        task.id === tasks[0]!.id ? { input: 20, output: 3 } : { input: 2000, output: 300 },
      ),
      { apiKey: KEY, models: ['gpt-4o'] },
    );
    servers.push(server);
    const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: KEY };
    const redis = await startRedis();
    const worker = cli.start(['worker', '--redis', redis.url, '--grace', '5'], { env });
    const out = join(tempDir('queue-llm-cost-jump'), 'run');
    const result = await cli.start(
      [
        'run',
        'demo/sql',
        '--tasks',
        '0-5',
        '--model',
        'openai:gpt-4o',
        '--max-cost',
        '0.02',
        '--redis',
        redis.url,
        '--out',
        out,
      ],
      { env },
    ).done;
    const queue = new Queue('intercode', { connection: { host: '127.0.0.1', port: redis.port } });
    queue.on('error', () => {});
    const left = await queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
    await queue.close();
    await stopWorkers([worker]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^intercode: stopped before the cost cap: --max-cost \$0\.02/m);
    // After the cheap first episode all five others fit the estimate and are queued; the second costs
    // $0.016, so the queued ones not yet taken are removed (the one the worker took, if any, is played).
    const played = episodesOf(out).map((episode) => episode.taskId);
    expect(played.slice(0, 2)).toEqual([tasks[0]!.id, tasks[1]!.id]);
    // How many of the queued episodes a worker took before the gathering run saw the second one's
    // cost depends on the machine's load (on a busy CI machine the worker took them all); what is
    // certain is that the run stopped at the cap, said so, and left nothing queued.
    expect(Object.values(left).reduce((sum, count) => sum + count, 0)).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))).toMatchObject({ complete: false });
  });
});
