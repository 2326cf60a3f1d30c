import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, Option } from 'commander';
import type { Agent } from '../../agents/agent.js';
import { GoldAgent } from '../../agents/gold-agent.js';
import { HumanAgent } from '../../agents/human-agent.js';
import type { ReplayAgent } from '../../agents/replay/replay-agent.js';
import { UsageError } from '../../core/errors.js';
import type { Task } from '../../core/task.js';
import type { EnvDefinition } from '../../envs/env-definition.js';
import { checkResumedSetup } from '../../harness/check-resumed-setup.js';
import type { Reporter } from '../../harness/reporter.js';
import { runBenchmark } from '../../harness/run-benchmark.js';
import { planRun } from '../../harness/run-plan.js';
import { checkQueueName, DEFAULT_QUEUE } from '../../queue/queue-keys.js';
import { redisOptionsOf } from '../../queue/redis-url.js';
import { EXIT } from '../exit-codes.js';
import { interruptSignal, stopGracefully } from '../interrupt.js';
import { addLlmOptions, type LlmFlags, type LlmSetup, resolveAgentName, setUpLlm } from '../llm-flags.js';
import { addEnvOptions, type EnvFlags, positiveInteger, runConfigOf } from '../options.js';
import { ProgressBarReporter } from '../reporters/progress-bar-reporter.js';
import { SummaryReporter } from '../reporters/summary-reporter.js';
import { selectTasks } from '../task-selection.js';

interface RunFlags extends EnvFlags, LlmFlags {
  agent: (typeof AGENTS)[number];
  tasks?: string;
  concurrency?: number;
  samples: number;
  redis?: string;
  queue?: string;
  maxAttempts?: number;
  out?: string;
  maxTurns: number;
  trajectories?: string[];
  resume?: boolean;
  json?: boolean;
  includeUnrunnable?: boolean;
}

const AGENTS = ['gold', 'replay', 'human', 'llm'] as const;

/** Agent options that only one agent takes are refused with the others (never silently ignored). */
function checkAgentFlags(flags: RunFlags): void {
  flags.agent = resolveAgentName(flags.agent, flags) as RunFlags['agent'];
  if (flags.agent === 'replay' && !flags.trajectories?.length)
    throw new UsageError('--agent replay needs --trajectories FILE');
  if (flags.agent !== 'replay' && flags.trajectories !== undefined)
    throw new UsageError('--trajectories applies to --agent replay only');
  if (flags.agent === 'human' && (flags.concurrency ?? 1) > 1)
    throw new UsageError('--agent human plays one episode at a time');
  if (flags.resume && !flags.out) throw new UsageError('--resume needs --out DIR (the run to continue)');
  checkQueueFlags(flags);
}

/** `--redis` and the options that only apply to it (never silently ignored). */
function checkQueueFlags(flags: RunFlags): void {
  if (flags.redis === undefined) {
    if (flags.queue !== undefined) throw new UsageError('--queue applies to --redis runs only');
    if (flags.maxAttempts !== undefined) throw new UsageError('--max-attempts applies to --redis runs only');
    return;
  }
  redisOptionsOf(flags.redis);
  checkQueueName(flags.queue ?? DEFAULT_QUEUE);
  if (flags.agent === 'human')
    throw new UsageError('--agent human cannot run on a queue (--redis): play it locally');
  if (flags.concurrency !== undefined)
    throw new UsageError('--concurrency does not apply to --redis runs: set it on each `intercode worker`');
}

/** The agent; the replay agent (and its schema library) is loaded only when asked for. */
async function createAgent(
  flags: RunFlags,
  definition: EnvDefinition,
  llm: LlmSetup | undefined,
): Promise<{ agent: Agent; replay?: ReplayAgent }> {
  switch (flags.agent) {
    case 'llm':
      return { agent: llm!.agent };
    case 'gold':
      return { agent: new GoldAgent(definition.goldActions) };
    case 'replay': {
      const { ReplayAgent } = await import('../../agents/replay/replay-agent.js');
      const replay = new ReplayAgent(flags.trajectories ?? []);
      return { agent: replay, replay };
    }
    case 'human':
      return { agent: new HumanAgent() };
  }
}

/** The replay model of `--model replay:FILE` (behind `--cache` too, which never caches it), read for its task list. */
async function replayModelOf(llm: LlmSetup | undefined) {
  if (llm?.client.provider !== 'replay') return undefined;
  const { ReplayModel } = await import('../../agents/llm/replay/replay-model.js');
  return llm.client instanceof ReplayModel ? llm.client : new ReplayModel(llm.client.model);
}

function defaultOutDir(datasetId: string, agent: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const slug = datasetId.replace(/^.*\//, (match) => match.replaceAll('/', '-')).replace(/[^\w.-]+/g, '-');
  return join('runs', `${slug}-${agent}-${stamp}`);
}

/**
 * A recorded run usually covers part of a dataset (the paper's MBPP runs: 119 of 974 tasks): the
 * replay agent and the replay model play the tasks the recording holds.
 */
function recordedTasks(
  has: (task: Task) => boolean,
  source: string,
  selected: readonly Task[],
  datasetId: string,
): Task[] {
  const recorded = selected.filter(has);
  if (recorded.length === 0) throw new UsageError(`${source} holds no episode of a task of ${datasetId}`);
  if (recorded.length < selected.length) {
    process.stderr.write(
      `intercode: replaying the ${recorded.length} of ${selected.length} tasks ${source} holds (--tasks to choose others)\n`,
    );
  }
  return recorded;
}

export function registerRun(program: Command): void {
  const command = program
    .command('run')
    .description('play a dataset with an agent and write episodes.jsonl and summary.json')
    .argument('<dataset>', 'dataset id (see `intercode datasets`) or a .json/.jsonl task file')
    .addOption(
      new Option('--agent <agent>', 'agent (default: gold; llm when --model is given)').choices(AGENTS),
    )
    .option('--tasks <list>', 'task indices, e.g. 0-9,12')
    .option('--concurrency <n>', 'episodes played at once (default: 1)', positiveInteger('--concurrency'))
    .option('--samples <n>', 'episodes per task (pass@k, group rollouts)', positiveInteger('--samples'), 1)
    .option('--redis <url>', 'put the episodes on this Redis queue for `intercode worker`s to play')
    .option('--queue <name>', `the queue of --redis (default: ${DEFAULT_QUEUE})`)
    .option(
      '--max-attempts <n>',
      'with --redis, tries of an episode that fails for infrastructure reasons (default: 3)',
      positiveInteger('--max-attempts'),
    )
    .option('--out <dir>', 'run directory (default: runs/<dataset>-<agent>-<time>)')
    .option('--max-turns <n>', 'turns per episode', positiveInteger('--max-turns'), 10)
    .option(
      '--trajectories <file...>',
      'recorded trajectories for --agent replay (upstream results or episodes.jsonl)',
    )
    .option(
      '--include-unrunnable',
      'also play tasks marked unrunnable here (they need the internet, files are missing)',
    )
    .option('--resume', 'continue the run in --out, skipping the episodes it already has')
    .option('--json', 'print the summary as JSON instead of a table');
  addLlmOptions(addEnvOptions(command)).action(async (datasetArg: string, flags: RunFlags) => {
    checkAgentFlags(flags);
    if (flags.redis !== undefined) {
      const { assertRedisReachable } = await import('../../queue/check-redis.js');
      await assertRedisReachable(flags.redis);
    }
    const plan = await planRun(runConfigOf(datasetArg, flags));
    let progress: ProgressBarReporter | undefined;
    // The model is checked (provider, key, prices, endpoint, model name) before any dataset download.
    const llm =
      flags.agent === 'llm'
        ? await setUpLlm(flags, {
            env: plan.envName,
            handicap: Boolean(flags.handicap),
            onRetry: (retry) => {
              if (progress) progress.onRetry(retry);
              else
                process.stderr.write(
                  `intercode: model call retry ${retry.attempt} after ${retry.reason}, waiting ${(retry.waitMs / 1000).toFixed(1)} s\n`,
                );
            },
          })
        : undefined;
    const { agent, replay } = await createAgent(flags, plan.definition, llm);
    if (flags.resume) {
      checkResumedSetup(flags.out!, {
        ...plan.describe(),
        agent: agent.name,
        model: agent.model,
        strategy: agent.strategy,
        maxTurns: flags.maxTurns,
      });
    }
    const dataset = await plan.loadDataset();
    // Once the dataset is there: a run that fails before it starts says one line, its error.
    for (const notice of plan.notices) process.stderr.write(`intercode: ${notice}\n`);
    replay?.bind(dataset.tasks);
    let selected = selectTasks(dataset.tasks, flags.tasks, dataset.id);
    if (replay && flags.tasks === undefined)
      selected = recordedTasks((task) => replay.has(task), 'the --trajectories file', selected, dataset.id);
    const replayModel = await replayModelOf(llm);
    if (replayModel && flags.tasks === undefined)
      selected = recordedTasks(
        (task) => replayModel.has(task.id, task.query),
        'the --model replay: file',
        selected,
        dataset.id,
      );
    const skipped = flags.includeUnrunnable ? [] : plan.unrunnable(selected);
    const skippedIds = new Set(skipped.map((skip) => skip.taskId));
    const tasks = selected.filter((task) => !skippedIds.has(task.id));
    if (skipped.length > 0) {
      process.stderr.write(
        `intercode: skipping ${skipped.length} unrunnable task(s) (--include-unrunnable plays them):\n${skipped
          .map((skip) => `  ${skip.taskId}: ${skip.reason}\n`)
          .join('')}`,
      );
    }
    const outDir = flags.out ?? defaultOutDir(dataset.id, agent.name);
    if (flags.redis !== undefined) {
      // The gatherer's model client did its check; the workers build their own.
      await llm?.client.close?.();
      const { runDistributed } = await import('../distributed-run.js');
      await runDistributed({
        redis: flags.redis,
        queue: flags.queue ?? DEFAULT_QUEUE,
        plan,
        dataset,
        tasks,
        skipped,
        agent: flags.agent as 'gold' | 'replay' | 'llm',
        trajectories: flags.trajectories ?? [],
        ...(llm ? { llm: flags, llmAgent: { model: llm.agent.model, strategy: llm.agent.strategy } } : {}),
        ...(llm?.budget ? { budget: llm.budget } : {}),
        samples: flags.samples,
        maxTurns: flags.maxTurns,
        maxAttempts: flags.maxAttempts ?? 3,
        outDir,
        resume: Boolean(flags.resume),
        json: Boolean(flags.json),
      });
      return;
    }
    llm?.prefixes.open(outDir);
    // A resumed run's finished episodes count toward its cost cap.
    const previous = join(outDir, 'episodes.jsonl');
    if (llm?.budget && flags.resume && existsSync(previous)) {
      // A torn last line of a killed run is not an episode (the log drops it too).
      const text = readFileSync(previous, 'utf8');
      const { parseEpisodeRecords } = await import('../../harness/episode-record.js');
      for (const record of parseEpisodeRecords(text.slice(0, text.lastIndexOf('\n') + 1), previous)) {
        if (record.error === undefined)
          llm.budget.addFinished(record.costUsd === undefined ? 0 : record.costUsd);
      }
    }
    // Envs the run plays on at once: no more than it has episodes.
    const envsAtOnce = Math.max(1, Math.min(flags.concurrency ?? 1, tasks.length * flags.samples));
    const run = await plan.open(dataset, { concurrency: envsAtOnce });
    progress =
      process.stderr.isTTY && !flags.json && flags.agent !== 'human' ? new ProgressBarReporter() : undefined;
    const reporters: Reporter[] = [new SummaryReporter({ json: Boolean(flags.json) })];
    if (progress) reporters.unshift(progress);
    stopGracefully();
    try {
      const result = await runBenchmark({
        tasks,
        skipped,
        description: { ...run.description, agent: agent.name },
        createEnv: () => run.createEnv(),
        agent,
        concurrency: flags.concurrency ?? 1,
        samples: flags.samples,
        outDir,
        resume: Boolean(flags.resume),
        maxTurns: flags.maxTurns,
        scoreEveryTurn: plan.definition.scoreEveryTurn ?? true,
        signal: interruptSignal,
        reporters,
        ...(llm?.budget ? { mayStart: () => llm.budget?.refusal() } : {}),
      });
      if (result.interrupted) process.exitCode = EXIT.interrupted;
      else if (result.stopReason && llm?.budget?.refusal() !== undefined) {
        process.stderr.write(
          `intercode: stopped before the cost cap: ${result.stopReason} (finished episodes are kept; raise --max-cost and run again with --resume)\n`,
        );
      } else if (result.stopReason) {
        process.stderr.write(
          `intercode: stopped early: ${result.stopReason} (finished episodes are kept; fix the cause and run again with --resume)\n`,
        );
        process.exitCode = EXIT.unavailable;
      }
    } finally {
      progress?.stop();
      if (agent instanceof HumanAgent) agent.close();
      await run.close();
      await llm?.client.close?.();
    }
  });
}
