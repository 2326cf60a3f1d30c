#!/usr/bin/env node
// Redis memory per queued episode, for the sizing in docs/guides/scale.md.
//
//   node deploy/scripts/redis-memory-per-job.mjs [N] [episodes.jsonl]
//
// Starts a private redis-server (Debian's, on a Unix socket in a temporary folder, no persistence),
// adds N jobs shaped as the queue adds them (src/queue/gather-run.ts: one per episode, jobId
// <runId>.<taskIndex>.<sample>, data { runId, taskIndex, taskId, sample }, attempts and backoff) and
// reads `used_memory` before and after; then has a worker play them as a worker does, its result (the
// first line of the given episodes.jsonl, and a 10-turn record made from it) appended to the run's
// result stream, and reads it again: what the results the gatherer has not read yet take. Needs `bullmq` and `ioredis` resolvable from this folder (the project's dependencies
// once the queue is merged).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';

const n = Number(process.argv[2] ?? 20000);
const recordFile = process.argv[3];
const oneTurn = recordFile
  ? (readFileSync(recordFile, 'utf8')
      .split('\n')
      .find((line) => line.trim() !== '') ?? '{}')
  : JSON.stringify({ schemaVersion: 1, taskId: 't', turns: [{ action: 'a', observation: 'o', reward: 1 }] });
const base = JSON.parse(oneTurn);
const tenTurn = JSON.stringify({ ...base, turns: Array.from({ length: 10 }, () => base.turns?.[0] ?? {}) });

const dir = mkdtempSync(join(tmpdir(), 'redis-measure-'));
const socket = join(dir, 'redis.sock');
const server = spawn(
  'redis-server',
  [
    '--port',
    '0',
    '--unixsocket',
    socket,
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--maxmemory-policy',
    'noeviction',
  ],
  { stdio: 'ignore' },
);
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const connect = () => new IORedis({ path: socket, maxRetriesPerRequest: null });
try {
  for (let attempt = 0; !existsSync(socket); attempt++) {
    if (attempt > 100) throw new Error(`redis-server did not open ${socket}`);
    await sleep(100);
  }
  const admin = connect();
  const used = async () => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
  const version = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1];
  const runId = '20261201T103700-demo-sql-a1b2c3';
  const opts = { attempts: 3, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true };

  async function addJobs(name) {
    const queue = new Queue(name, { connection: connect() });
    await queue.waitUntilReady();
    const before = await used();
    for (let i = 0; i < n; i += 500) {
      const batch = [];
      for (let j = i; j < Math.min(n, i + 500); j++) {
        const taskIndex = j % 41;
        const sample = Math.floor(j / 41);
        batch.push({
          name: 'episode',
          data: { runId, taskIndex, taskId: `demo-task-${String(taskIndex).padStart(10, '0')}`, sample },
          opts: { ...opts, jobId: `${runId}.${taskIndex}.${sample}` },
        });
      }
      await queue.addBulk(batch);
    }
    return { queue, bytes: (await used()) - before };
  }

  const waiting = await addJobs('measure-waiting');
  print({ redis: version, jobs: n, state: 'waiting', bytesPerJob: Math.round(waiting.bytes / n) });
  await waiting.queue.obliterate({ force: true });
  await waiting.queue.close();

  for (const [label, record] of [
    ['1 turn', oneTurn],
    ['10 turns', tenTurn],
  ]) {
    const name = `measure-completed-${label.replace(/\W/g, '')}`;
    const baseline = await used();
    const { queue } = await addJobs(name);
    const results = `intercode:${name}:run:${runId}:results`;
    const publisher = connect();
    await new Promise((resolve) => {
      let done = 0;
      // As src/queue/queue-worker.ts does: the result goes to the run's stream, the job completes
      // empty and BullMQ removes it.
      const worker = new Worker(
        name,
        async (job) => {
          await publisher
            .pipeline()
            .xadd(results, '*', 'job', job.id, 'value', record)
            .expire(results, 604800)
            .exec();
        },
        { connection: connect(), concurrency: 50 },
      );
      worker.on('completed', () => {
        done += 1;
        if (done === n) worker.close().then(resolve);
      });
    });
    const extra = (await used()) - baseline;
    print({
      redis: version,
      jobs: n,
      state: `played, result of ${label} not yet gathered`,
      recordBytes: Buffer.byteLength(record),
      bytesPerResult: Math.round(extra / n),
    });
    await publisher.quit();
    await admin.del(results);
    await queue.obliterate({ force: true });
    await queue.close();
  }
  await admin.quit();
} finally {
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
