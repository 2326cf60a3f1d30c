import type { Command } from 'commander';
import { planRun } from '../../harness/run-plan.js';
import { datasetChecksum } from '../../queue/dataset-checksum.js';
import { checkQueueName, DEFAULT_QUEUE } from '../../queue/queue-keys.js';
import { QueueWorker } from '../../queue/queue-worker.js';
import { redisOptionsOf, redisUrlForDisplay } from '../../queue/redis-url.js';
import type { RunMeta } from '../../queue/run-meta.js';
import { interruptSignal, stopGracefully } from '../interrupt.js';
import { positiveInteger, positiveNumber } from '../options.js';
import { packageVersion } from '../package-version.js';
import { workerAgent } from '../worker-agent.js';

interface WorkerFlags {
  redis: string;
  concurrency: number;
  queue: string;
  maxEpisodes?: number;
  grace: number;
  lockDuration: number;
  runIdle: number;
}

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description(
      'take episodes of distributed runs (`intercode run --redis`) from a Redis queue and play them',
    )
    .requiredOption('--redis <url>', 'the Redis of the queue, redis://host:port')
    .option('--concurrency <n>', 'episodes played at once', positiveInteger('--concurrency'), 1)
    .option('--queue <name>', 'the queue to take episodes from', DEFAULT_QUEUE)
    .option('--max-episodes <n>', 'stop after this many episodes', positiveInteger('--max-episodes'))
    .option(
      '--grace <seconds>',
      'on SIGTERM, how long episodes in flight may take to finish before they are handed back',
      positiveNumber('--grace'),
      60,
    )
    .option(
      '--lock-duration <seconds>',
      "how long an episode's lock lasts unrenewed: a killed worker's episodes are retried after it",
      positiveNumber('--lock-duration'),
      30,
    )
    .option(
      '--run-idle <seconds>',
      "how long a run's envs, engines and agent stay open without an episode of it (opened again when it comes back)",
      positiveNumber('--run-idle'),
      60,
    )
    .action(async (flags: WorkerFlags) => {
      redisOptionsOf(flags.redis);
      checkQueueName(flags.queue);
      const log = (line: string) => process.stderr.write(`intercode worker: ${line}\n`);
      const worker = new QueueWorker({
        redisUrl: flags.redis,
        queue: flags.queue,
        concurrency: flags.concurrency,
        version: packageVersion(),
        ...(flags.maxEpisodes !== undefined ? { maxEpisodes: flags.maxEpisodes } : {}),
        lockDurationMs: flags.lockDuration * 1000,
        runIdleMs: flags.runIdle * 1000,
        log,
        openRun: async (meta: RunMeta) => {
          const plan = await planRun(meta.config);
          const dataset = await plan.loadDataset();
          const checksum = await datasetChecksum(dataset);
          const agent = await workerAgent(meta.agent, plan, dataset, log);
          let run: Awaited<ReturnType<typeof plan.open>>;
          try {
            run = await plan.open(dataset, { concurrency: flags.concurrency });
          } catch (error) {
            await agent.closeAgent?.();
            throw error;
          }
          log(`playing run ${meta.runId} (${meta.dataset})`);
          return { run, checksum, ...agent };
        },
      });
      stopGracefully();
      interruptSignal.addEventListener(
        'abort',
        () => {
          log(`stopping: finishing the episodes in flight (up to ${flags.grace} s)`);
          void worker.stop(flags.grace * 1000);
        },
        { once: true },
      );
      log(
        `${worker.id} on ${redisUrlForDisplay(flags.redis)} queue ${flags.queue}, ${flags.concurrency} at once`,
      );
      await worker.run();
      log(`stopped after ${worker.finished} episode(s)`);
    });
}
