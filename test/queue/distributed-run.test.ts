import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { QueueKeys } from '../../src/queue/queue-keys.js';
import { publishResult } from '../../src/queue/result-stream.js';
import { type CliRunner, expectOneLineError } from '../support/cli-runner.js';
import { test } from '../support/fixtures.js';
import { redisMissing } from '../support/missing-components.js';
import { MIRROR, PROJECT_ROOT } from '../support/project.js';
import { waitFor } from '../support/wait-for.js';
import {
  episodesOf,
  expectExactlyOnce,
  lineCount,
  runEnd,
  startWorkers,
  stopWorkers,
} from './queue-test-run.js';

// demo/sql has 41 tasks: × 5 samples = 205 episodes, the "200 episodes" and more.
const SAMPLES = 5;
const EPISODES = 205;
const LONG = 240_000;

describe('intercode run --redis with intercode worker processes on a private redis-server', () => {
  let local: { taskIds: string[]; successRate: number } | undefined;
  /** The local run of the same episodes: the success rate every distributed run must equal. */
  function localRun(cli: CliRunner, dir: string) {
    if (local) return local;
    const out = join(dir, 'local');
    const result = cli.run(['run', 'demo/sql', '--samples', String(SAMPLES), '--out', out, '--json'], {
      timeoutMs: LONG,
    });
    expect(result.status, result.stderr).toBe(0);
    const records = episodesOf(out);
    expect(records).toHaveLength(EPISODES);
    const taskIds = [...new Set(records.map((record) => record.taskId))];
    local = { taskIds, successRate: records.filter((record) => record.success).length / records.length };
    return local;
  }

  test('a worker killed with SIGKILL halfway: every episode once, the local success rate', {
    timeout: LONG,
  }, async ({ cli, tempDir, startRedis, needs }) => {
    needs(redisMissing());
    const dir = tempDir('queue-kill-worker');
    const { taskIds, successRate } = localRun(cli, dir);
    const redis = await startRedis();
    const out = join(dir, 'dist');
    const workers = startWorkers(cli, redis.url, 3);
    const run = cli.start([
      'run',
      'demo/sql',
      '--samples',
      String(SAMPLES),
      '--redis',
      redis.url,
      '--out',
      out,
      '--json',
    ]);
    await waitFor(() => lineCount(out) >= EPISODES / 2, LONG, 'half of the episodes');
    // Killed while it holds an episode (its lock then has to expire and another worker replay it).
    const victim = workers[0]!.child;
    const queue = new Queue('intercode', { connection: { host: '127.0.0.1', port: redis.port } });
    queue.on('error', () => {});
    let held: string | undefined;
    try {
      while (held === undefined && lineCount(out) < EPISODES) {
        const active = await queue.getActive();
        held = active.find((job) => job.processedBy?.endsWith(`:${victim.pid}`))?.id;
        if (held !== undefined) victim.kill('SIGKILL');
      }
    } finally {
      await queue.close();
    }
    expect(held, 'the worker never held an episode when it was killed').toBeDefined();
    const result = await runEnd(run, workers, LONG / 2);
    expect(result.status, result.stderr).toBe(0);
    expect(expectExactlyOnce(out, taskIds, SAMPLES)).toBe(successRate);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ n: EPISODES, complete: true });
    await stopWorkers(workers);
  });

  test('the gathering run killed with SIGKILL and resumed: every episode once', { timeout: LONG }, async ({
    cli,
    tempDir,
    startRedis,
    needs,
  }) => {
    needs(redisMissing());
    const dir = tempDir('queue-kill-run');
    const { taskIds, successRate } = localRun(cli, dir);
    const redis = await startRedis();
    const out = join(dir, 'dist');
    const args = [
      'run',
      'demo/sql',
      '--samples',
      String(SAMPLES),
      '--redis',
      redis.url,
      '--out',
      out,
      '--json',
    ];
    const workers = startWorkers(cli, redis.url, 3);
    const first = cli.start(args);
    await waitFor(() => lineCount(out) >= 60, LONG, 'a third of the episodes');
    first.child.kill('SIGKILL');
    await first.done;
    const before = lineCount(out);
    expect(before).toBeLessThan(EPISODES);
    const resumed = await cli.start([...args, '--resume']).done;
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(expectExactlyOnce(out, taskIds, SAMPLES)).toBe(successRate);
    await stopWorkers(workers);
  });

  test('Redis restarted mid-run, its data lost: the run finishes, every episode once', {
    timeout: LONG,
  }, async ({ cli, tempDir, startRedis, needs }) => {
    needs(redisMissing());
    const dir = tempDir('queue-restart-redis');
    const { taskIds, successRate } = localRun(cli, dir);
    const redis = await startRedis();
    const out = join(dir, 'dist');
    const workers = startWorkers(cli, redis.url, 3);
    const run = cli.start([
      'run',
      'demo/sql',
      '--samples',
      String(SAMPLES),
      '--redis',
      redis.url,
      '--out',
      out,
      '--json',
    ]);
    await waitFor(() => lineCount(out) >= 60, LONG, 'a third of the episodes');
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await redis.startAgain({ dropData: true });
    const result = await runEnd(run, workers, LONG / 2);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /lost redis:\/\/127\.0\.0\.1:\d+\/? \(.*\); the run goes on when it is back/,
    );
    expect(expectExactlyOnce(out, taskIds, SAMPLES)).toBe(successRate);
    await stopWorkers(workers);
  });

  test('the same job completed twice: one record', { timeout: LONG }, async ({
    cli,
    tempDir,
    startRedis,
    needs,
  }) => {
    needs(redisMissing());
    const dir = tempDir('queue-duplicate');
    const redis = await startRedis();
    const out = join(dir, 'dist');
    const connection = { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null };
    const run = cli.start([
      'run',
      'demo/sql',
      '--tasks',
      '0',
      '--samples',
      '2',
      '--redis',
      redis.url,
      '--out',
      out,
    ]);
    // This process plays a worker that delivers one episode twice: the job as the run put it there,
    // then the same job id again after the run gathered it and BullMQ removed the completed job.
    const queue = new Queue('intercode', { connection });
    const fake = new Worker('intercode', null, { connection, autorun: false });
    const publisher = new Redis(connection);
    const keys = new QueueKeys('intercode');
    queue.on('error', () => {});
    fake.on('error', () => {});
    /** Takes the job `wanted` (any first time), holding the others meanwhile, and completes it. */
    const deliver = async (token: string, wanted?: string) => {
      const held: Job[] = [];
      let job: Job | undefined;
      while (!job || (wanted !== undefined && job.id !== wanted)) {
        if (job) held.push(job);
        job = await fake.getNextJob(token);
      }
      for (const other of held) await other.moveToWait(token);
      const data = job.data as { runId: string; taskId: string; sample: number; taskIndex: number };
      // As a worker does: the result goes to the run's result stream, then the job completes.
      const record = {
        taskId: data.taskId,
        index: data.taskIndex,
        sample: data.sample,
        dataset: 'demo/sql',
        query: 'delivered by the test',
        turns: [],
        reward: 1,
        maxReward: 1,
        success: true,
        turnsTaken: 0,
        terminated: true,
        truncated: false,
        durationMs: 1,
      };
      await publishResult(publisher, keys.results(data.runId), job.id!, JSON.stringify(record));
      await job.moveToCompleted(null, token, false);
      return job;
    };
    let jobId = '';
    try {
      const job = await deliver('fake-1');
      jobId = job.id!;
      await waitFor(() => lineCount(out) === 1, LONG, 'the first delivery gathered');
      await waitUntilGone(queue, jobId);
      await queue.add(job.name, job.data, { ...job.opts, jobId });
      const again = await deliver('fake-2', jobId);
      expect(again.id).toBe(jobId);
      await waitUntilGone(queue, jobId);
    } finally {
      await fake.close();
      publisher.disconnect();
    }
    const workers = startWorkers(cli, redis.url, 1);
    const result = await run.done;
    await queue.close();
    expect(result.status, result.stderr).toBe(0);
    const records = episodesOf(out);
    expect(records.map((record) => record.sample).sort()).toEqual([0, 1]);
    expect(records.filter((record) => record.query === 'delivered by the test')).toHaveLength(1);
    await stopWorkers(workers);
  });

  test('a worker closes a run it played no episode of for --run-idle, and serves the next run', {
    timeout: LONG,
  }, async ({ cli, tempDir, startRedis, needs }) => {
    needs(redisMissing());
    const dir = tempDir('queue-run-idle');
    const redis = await startRedis();
    const worker = cli.start(['worker', '--redis', redis.url, '--run-idle', '1', '--lock-duration', '3']);
    const play = (out: string) =>
      cli.start(['run', 'demo/sql', '--tasks', '0-2', '--redis', redis.url, '--out', join(dir, out)]).done;
    expect((await play('first')).status).toBe(0);
    // The announcement tick (every second here) closes the first run once it is idle for a second.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await play('second')).status).toBe(0);
    expect(lineCount(join(dir, 'first'))).toBe(3);
    expect(lineCount(join(dir, 'second'))).toBe(3);
    worker.child.kill('SIGTERM');
    const { status, stderr } = await worker.done;
    expect(status, stderr).toBe(0);
    const playing = [...stderr.matchAll(/playing run (\S+) /g)].map((match) => match[1]);
    expect(playing).toHaveLength(2);
    expect(stderr).toMatch(new RegExp(`closed run ${playing[0]}: no episode of it for \\d+ s`));
    expect(stderr.indexOf(`closed run ${playing[0]}`)).toBeLessThan(
      stderr.indexOf(`playing run ${playing[1]}`),
    );
  });

  test('a worker of another version refuses, with the reason; a matching one plays', {
    timeout: LONG,
  }, async ({ cli, tempDir, startRedis, needs }) => {
    needs(redisMissing());
    const dir = tempDir('queue-version');
    // The same build under another version: a copy of bin/, dist/ and package.json.
    const other = join(dir, 'other');
    mkdirSync(other);
    cpSync(join(PROJECT_ROOT, 'bin'), join(other, 'bin'), { recursive: true });
    cpSync(join(PROJECT_ROOT, 'dist'), join(other, 'dist'), { recursive: true });
    const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8'));
    writeFileSync(join(other, 'package.json'), JSON.stringify({ ...manifest, version: '0.0.0-other' }));
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(other, 'node_modules'));
    const redis = await startRedis();
    const out = join(dir, 'dist');
    const stale = spawn(process.execPath, [join(other, 'bin', 'intercode'), 'worker', '--redis', redis.url], {
      env: { ...process.env, INTERCODE_CACHE_DIR: cli.cache, INTERCODE_DATA_MIRROR: MIRROR },
      stdio: 'ignore',
    });
    const staleGone = new Promise((resolve) => stale.once('exit', resolve));
    try {
      const run = cli.start(['run', 'demo/sql', '--tasks', '0-3', '--redis', redis.url, '--out', out]);
      let stderr = '';
      run.child.stderr!.on('data', (chunk: Buffer | string) => {
        stderr += chunk.toString();
      });
      await waitFor(() => /refused/.test(stderr), LONG, 'the refusal');
      expect(lineCount(out)).toBe(0);
      const workers = startWorkers(cli, redis.url, 1);
      const result = await run.done;
      expect(result.status, result.stderr).toBe(0);
      expect(
        result.stderr.match(/worker [^ ]+ refused: project 0\.0\.0-other ≠ \d+\.\d+\.\d+/g),
      ).toHaveLength(1);
      expect(episodesOf(out)).toHaveLength(4);
      await stopWorkers(workers);
    } finally {
      stale.kill('SIGKILL');
      await staleGone;
    }
  });

  test('bad queue options: one line each, before any work', { timeout: LONG }, ({ cli }) => {
    expectOneLineError(cli.run(['run', 'demo/sql', '--queue', 'q']), /--queue applies to --redis runs only/);
    expectOneLineError(
      cli.run(['run', 'demo/sql', '--max-attempts', '2']),
      /--max-attempts applies to --redis/,
    );
    expectOneLineError(cli.run(['run', 'demo/sql', '--redis', 'http://x']), /--redis http:\/\/x: the scheme/);
    expectOneLineError(
      cli.run(['run', 'demo/sql', '--redis', 'redis://127.0.0.1:1', '--agent', 'human']),
      /--agent human cannot run on a queue/,
    );
    expectOneLineError(
      cli.run(['run', 'demo/sql', '--redis', 'redis://127.0.0.1:1', '--concurrency', '2']),
      /--concurrency does not apply to --redis runs/,
    );
    expectOneLineError(cli.run(['worker', '--redis', 'redis://h', '--queue', 'a:b']), /--queue a:b/);
    expectOneLineError(cli.run(['run', 'demo/sql', '--samples', '0']), /--samples/);
    const unreachable = cli.run(['run', 'demo/sql', '--redis', 'redis://127.0.0.1:1']);
    expect(unreachable.stderr).toMatch(
      /^intercode: cannot reach the Redis of --redis: redis:\/\/127\.0\.0\.1:1\/?: connect ECONNREFUSED[^\n]*\n$/,
    );
    expect(unreachable.status).toBe(2);
  });
});

async function waitUntilGone(queue: Queue, jobId: string): Promise<void> {
  const started = Date.now();
  while ((await queue.getJobState(jobId)) !== 'unknown') {
    if (Date.now() - started > LONG) throw new Error(`job ${jobId} was never removed`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
