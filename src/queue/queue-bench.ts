import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GoldAgent } from '../agents/gold-agent.js';
import { type BenchFigure, figure } from '../harness/bench/bench-figure.js';
import { runBenchmark } from '../harness/run-benchmark.js';
import type { RunPlan } from '../harness/run-plan.js';
import { datasetChecksum } from './dataset-checksum.js';
import { gatherRun } from './gather-run.js';
import { newRunId, QueueKeys } from './queue-keys.js';
import { connectRedis } from './redis-connection.js';
import { listWorkers } from './worker-watch.js';

export interface QueueBenchOptions {
  /** The Redis to use; the bench starts its own queue on it (and removes nothing else). */
  readonly redisUrl: string;
  /** The plan of the measured run (`demo/sql`). */
  readonly plan: RunPlan;
  /** The CLI script that starts workers (`intercode worker`). */
  readonly cli: string;
  readonly version: string;
  /** Episodes per task of the throughput runs. */
  readonly samples: number;
  readonly onProgress: (message: string) => void;
}

/**
 * Episodes per second from the first finished episode to the last: the steady rate, without the
 * setup of the run (a local run opening its engine, each worker opening the run on its first job).
 */
function steadyRate(times: readonly number[]): number {
  if (times.length < 2) return Number.NaN;
  return ((times.length - 1) * 1000) / (times[times.length - 1]! - times[0]!);
}

/** Starts `count` worker processes of one episode at a time on `queue`; resolves when all announced. */
async function startWorkers(
  options: QueueBenchOptions,
  queue: string,
  count: number,
): Promise<ChildProcess[]> {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, [options.cli, 'worker', '--redis', options.redisUrl, '--queue', queue], {
      stdio: 'ignore',
    }),
  );
  const redis = connectRedis(options.redisUrl);
  try {
    const started = Date.now();
    while ((await listWorkers(redis, new QueueKeys(queue))).length < count) {
      if (Date.now() - started > 60_000)
        throw new Error(`${count} bench workers did not announce themselves`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    redis.disconnect();
  }
  return children;
}

async function stopWorkers(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      return gone;
    }),
  );
}

/**
 * `intercode bench --only queue`: throughput of a distributed `demo/sql` gold run with 1, 2 and 4
 * worker processes on this machine (one episode at a time each) against a local run at concurrency
 * 2, both as steady rates (first episode to last) after a warm-up run of one episode per task; and
 * the queue's overhead per episode: enqueue → result gathered, minus the episode's own duration,
 * one episode in the queue at a time.
 */
export async function runQueueBench(options: QueueBenchOptions): Promise<BenchFigure[]> {
  const { plan } = options;
  const dataset = await plan.loadDataset();
  const checksum = await datasetChecksum(dataset);
  const group = `queue (${dataset.id})`;
  const outRoot = mkdtempSync(join(tmpdir(), 'intercode-bench-queue-'));
  const description = { dataset: dataset.id, env: plan.envName, agent: 'gold', maxTurns: 10 };
  const meta = {
    version: options.version,
    config: plan.config,
    agent: { kind: 'gold' } as const,
    maxTurns: 10,
    scoreEveryTurn: plan.definition.scoreEveryTurn ?? true,
    samples: options.samples,
    dataset: dataset.id,
    datasetChecksum: checksum,
  };
  const figures: BenchFigure[] = [];
  let runs = 0;
  const distributed = async (queue: string, samples: number, maxOutstanding?: number) => {
    const overheads: number[] = [];
    const flushed: number[] = [];
    const times: number[] = [];
    await gatherRun({
      redisUrl: options.redisUrl,
      queue,
      tasks: dataset.tasks,
      samples,
      description,
      meta: { ...meta, samples },
      outDir: join(outRoot, `run-${runs++}`),
      resume: false,
      maxAttempts: 1,
      ...(maxOutstanding !== undefined ? { maxOutstanding } : {}),
      onGathered: (record, { enqueuedAt, receivedAt, appendedAt }) => {
        overheads.push(receivedAt - enqueuedAt - record.durationMs);
        flushed.push(appendedAt - enqueuedAt - record.durationMs);
        times.push(appendedAt);
      },
    });
    return { rate: steadyRate(times), overheads, flushed };
  };
  try {
    options.onProgress('local run, concurrency 2');
    const run = await plan.open(dataset);
    let local: number;
    try {
      const times: number[] = [];
      const play = (samples: number, outDir: string) =>
        runBenchmark({
          tasks: dataset.tasks,
          samples,
          description,
          createEnv: () => run.createEnv(),
          agent: new GoldAgent(plan.definition.goldActions),
          concurrency: 2,
          outDir: join(outRoot, outDir),
          resume: false,
          maxTurns: 10,
          scoreEveryTurn: plan.definition.scoreEveryTurn ?? true,
          reporters: [{ onEpisodeEnd: () => times.push(performance.now()) }],
        });
      // Warmed up as the workers are (compiled code, loaded modules): one episode per task first.
      await play(1, 'local-warm-up');
      times.length = 0;
      await play(options.samples, 'local');
      local = steadyRate(times);
    } finally {
      await run.close();
    }
    figures.push(
      figure({ backend: 'queue', group, name: 'local run, concurrency 2', unit: 'episodes/s' }, [local]),
    );
    for (const count of [1, 2, 4]) {
      const queue = `bench-${newRunId()}`;
      options.onProgress(`${count} worker(s)`);
      const workers = await startWorkers(options, queue, count);
      try {
        // Workers serve run after run: a first run of one episode per task warms them up (compiled
        // code, modules); each measured run still opens its run on every worker.
        await distributed(queue, 1);
        if (count === 1) {
          // One episode in the queue at a time: what remains of enqueue → gathered is the queue's own time.
          const { overheads, flushed } = await distributed(queue, 3, 1);
          figures.push(
            figure(
              {
                backend: 'queue',
                group,
                name: 'overhead per episode (enqueue → result received − episode)',
                unit: 'ms',
                target: { op: '<=', value: 5, stat: 'p50' },
              },
              overheads,
            ),
            figure(
              {
                backend: 'queue',
                group,
                name: 'the same, to the result appended and flushed to episodes.jsonl',
                unit: 'ms',
              },
              flushed,
            ),
          );
        }
        const { rate } = await distributed(queue, options.samples);
        figures.push(
          figure(
            {
              backend: 'queue',
              group,
              name: `${count} worker${count > 1 ? 's' : ''} × 1 episode at a time`,
              unit: 'episodes/s',
              ...(count === 2
                ? { target: { op: '>=' as const, value: Math.round(0.8 * local), stat: 'p50' as const } }
                : {}),
            },
            [rate],
          ),
        );
      } finally {
        await stopWorkers(workers);
      }
    }
  } finally {
    rmSync(outRoot, { recursive: true, force: true });
  }
  return figures;
}
