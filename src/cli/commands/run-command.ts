import { join } from 'node:path';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import type { Agent } from '../../agents/agent.js';
import { GoldAgent } from '../../agents/gold-agent.js';
import { HumanAgent } from '../../agents/human-agent.js';
import { ReplayAgent } from '../../agents/replay/replay-agent.js';
import { SandboxError, UsageError } from '../../core/errors.js';
import type { Dataset, Task } from '../../core/task.js';
import { resolveDataset } from '../../datasets/resolve-dataset.js';
import type { EnvDefinition, EnvFactory } from '../../envs/env-definition.js';
import { createEnvRegistry } from '../../envs/env-registry.js';
import { formatTable } from '../../harness/format-table.js';
import { metricsByGroup } from '../../harness/metrics.js';
import { runBenchmark } from '../../harness/run-benchmark.js';
import type { RunSummary, SkippedTask } from '../../harness/run-summary.js';
import { createProviderRegistry } from '../../sandbox/provider-registry.js';
import { resolveEnvOption } from '../env-option.js';
import { EXIT } from '../exit-codes.js';
import { interruptSignal, stopGracefully } from '../interrupt.js';
import { positiveInteger } from '../options.js';
import { selectTasks } from '../task-selection.js';

interface RunFlags {
  env?: string;
  agent: string;
  tasks?: string;
  concurrency: number;
  out?: string;
  backend: string;
  image?: string;
  maxTurns: number;
  trajectories?: string[];
  resume?: boolean;
  json?: boolean;
  compat: string;
  engine?: string;
  dbUrl?: string;
  handicap?: boolean;
  includeUnrunnable?: boolean;
}

const AGENTS = ['gold', 'replay', 'human'] as const;

function createAgent(flags: RunFlags, definition: EnvDefinition): Agent {
  switch (flags.agent) {
    case 'gold':
      return new GoldAgent(definition.goldActions);
    case 'replay':
      if (!flags.trajectories?.length) throw new UsageError('--agent replay needs --trajectories FILE');
      return new ReplayAgent(flags.trajectories);
    case 'human':
      return new HumanAgent();
    default:
      throw new UsageError(`--agent: unknown agent "${flags.agent}" (known: ${AGENTS.join(', ')})`);
  }
}

function defaultOutDir(datasetId: string, agent: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const slug = datasetId.replace(/^.*\//, (match) => match.replaceAll('/', '-')).replace(/[^\w.-]+/g, '-');
  return join('runs', `${slug}-${agent}-${stamp}`);
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

/** The table printed at the end of a run. */
export function summaryTable(summary: RunSummary, byGroup: ReturnType<typeof metricsByGroup>): string {
  const header = ['group', 'n', 'solved', 'success', 'mean reward', 'turns', 'error'];
  const rows = [
    [
      'all',
      String(summary.n),
      String(summary.solved),
      percent(summary.successRate),
      summary.meanReward.toFixed(3),
      summary.meanTurns.toFixed(2),
      percent(summary.errorRate),
    ],
  ];
  const groups = Object.entries(byGroup);
  if (groups.length > 1) {
    for (const [group, m] of groups) {
      rows.push([
        group,
        String(m.n),
        String(m.solved),
        percent(m.successRate),
        m.meanReward.toFixed(3),
        m.meanTurns.toFixed(2),
        percent(m.errorRate),
      ]);
    }
  }
  return formatTable(header, rows);
}

/** The selected tasks the environment cannot run here, with why. */
function unrunnableTasks(tasks: readonly Task[], definition: EnvDefinition): SkippedTask[] {
  const skipped: SkippedTask[] = [];
  for (const task of tasks) {
    const reason = definition.unrunnable?.(task);
    if (reason !== undefined) skipped.push({ taskId: task.id, reason });
  }
  return skipped;
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('play a dataset with an agent and write episodes.jsonl and summary.json')
    .argument('<dataset>', 'dataset id (see `intercode datasets`) or a .json/.jsonl task file')
    .option(
      '--env <env>',
      'environment, needed for a task file (bash, sql, python, ctf, or ./my-env.js exporting defineEnvironment(...))',
    )
    .option('--agent <agent>', `agent: ${AGENTS.join(', ')}`, 'gold')
    .option('--tasks <list>', 'task indices, e.g. 0-9,12')
    .option('--concurrency <n>', 'episodes played at once', positiveInteger('--concurrency'), 1)
    .option('--out <dir>', 'run directory (default: runs/<dataset>-<agent>-<time>)')
    .option('--backend <backend>', 'sandbox backend', 'bwrap')
    .option('--image <image>', "sandbox image (default: the environment's, else host)")
    .option('--max-turns <n>', 'turns per episode', positiveInteger('--max-turns'), 10)
    .option(
      '--trajectories <file...>',
      'recorded trajectories for --agent replay (upstream results or episodes.jsonl)',
    )
    .option(
      '--compat <mode>',
      "Bash and Python: fixed, or upstream to reproduce the original's handling, bugs included",
      'fixed',
    )
    .option('--engine <engine>', 'SQL engine: sqlite (default), mysql, postgres')
    .option('--db-url <url>', 'a mysql:// or postgres:// server to use instead of starting one')
    .option('--handicap', 'SQL: give the agent the tables and columns of the database (paper Table 5)')
    .option(
      '--include-unrunnable',
      'also play tasks marked unrunnable here (they need the internet, files are missing)',
    )
    .option('--resume', 'continue the run in --out, skipping the episodes it already has')
    .option('--json', 'print the summary as JSON instead of a table')
    .action(async (datasetArg: string, flags: RunFlags) => {
      if (flags.compat !== 'fixed' && flags.compat !== 'upstream') {
        throw new UsageError(`--compat must be fixed or upstream, got "${flags.compat}"`);
      }
      if (flags.resume && !flags.out) throw new UsageError('--resume needs --out DIR (the run to continue)');
      const envs = createEnvRegistry();
      const envName = await resolveEnvOption(flags.env, envs);
      const dataset: Dataset = await resolveDataset(datasetArg, { env: envName });
      const definition = envs.get(dataset.env);
      const agent = createAgent(flags, definition);
      if (agent instanceof ReplayAgent) agent.bind(dataset.tasks);
      let selected = selectTasks(dataset.tasks, flags.tasks, dataset.id);
      if (agent instanceof ReplayAgent && flags.tasks === undefined) {
        // A recorded run usually covers part of a dataset (the paper's MBPP runs: 119 of 974 tasks).
        const recorded = selected.filter((task) => agent.has(task));
        if (recorded.length === 0) {
          throw new UsageError(`--trajectories hold no episode of a task of ${dataset.id}`);
        }
        if (recorded.length < selected.length) {
          process.stderr.write(
            `intercode: replaying the ${recorded.length} of ${selected.length} tasks the trajectories hold (--tasks to choose others)\n`,
          );
        }
        selected = recorded;
      }
      const skipped = flags.includeUnrunnable ? [] : unrunnableTasks(selected, definition);
      const tasks = selected.filter((task) => !skipped.some((skip) => skip.taskId === task.id));
      if (skipped.length > 0) {
        process.stderr.write(
          `intercode: skipping ${skipped.length} unrunnable task(s) (--include-unrunnable plays them):\n${skipped
            .map((skip) => `  ${skip.taskId}: ${skip.reason}\n`)
            .join('')}`,
        );
      }
      if (flags.agent === 'human' && flags.concurrency > 1)
        throw new UsageError('--agent human plays one episode at a time');
      const providerFactory = createProviderRegistry().get(flags.backend);
      const outDir = flags.out ?? defaultOutDir(dataset.id, agent.name);
      const provider = providerFactory();
      // Without this, every episode would be recorded as failed and the run would "succeed".
      const check = definition.usesSandbox ? await provider.check() : { ok: true, items: [] };
      if (!check.ok) {
        await provider.close();
        const missing = check.items.filter((item) => !item.ok && !item.optional);
        throw new SandboxError(
          'SANDBOX_UNAVAILABLE',
          `the ${flags.backend} sandbox cannot run here: ${missing
            .map((item) => `${item.name}: ${item.detail}${item.fix ? ` (fix: ${item.fix})` : ''}`)
            .join('; ')}`,
        );
      }
      let factory: EnvFactory;
      try {
        factory = await definition.open({
          dataset,
          provider,
          ...(flags.image ? { image: flags.image } : {}),
          compat: flags.compat as 'fixed' | 'upstream',
          ...(flags.engine ? { engine: flags.engine } : {}),
          ...(flags.dbUrl ? { dbUrl: flags.dbUrl } : {}),
          ...(flags.handicap ? { handicap: true } : {}),
        });
      } catch (error) {
        await provider.close();
        throw error;
      }
      const tty = process.stderr.isTTY && !flags.json && flags.agent !== 'human';
      const bar = tty
        ? new SingleBar({
            format: 'intercode run {bar} {value}/{total} | solved {solved} | eta {eta_formatted}',
            hideCursor: true,
            stream: process.stderr,
          })
        : undefined;
      let solved = 0;
      stopGracefully();
      try {
        const result = await runBenchmark({
          dataset,
          tasks,
          skipped,
          description: {
            dataset: dataset.id,
            env: dataset.env,
            agent: agent.name,
            backend: flags.backend,
            ...(factory.engine ? { engine: factory.engine } : {}),
          },
          createEnv: () => factory.create(),
          agent,
          concurrency: flags.concurrency,
          outDir,
          resume: Boolean(flags.resume),
          maxTurns: flags.maxTurns,
          scoreEveryTurn: definition.scoreEveryTurn ?? true,
          signal: interruptSignal,
          onStart: (total) => bar?.start(total, 0, { solved }),
          onEpisode: (record) => {
            if (record.success) solved += 1;
            bar?.increment(1, { solved });
          },
        });
        bar?.stop();
        if (flags.json) process.stdout.write(`${JSON.stringify(result.summary, null, 2)}\n`);
        else {
          process.stdout.write(`${summaryTable(result.summary, metricsByGroup(result.episodes))}\n`);
          if (result.summary.skipped?.length)
            process.stdout.write(`skipped (unrunnable here): ${result.summary.skipped.length}\n`);
          process.stdout.write(`run directory: ${outDir}\n`);
        }
        if (result.interrupted) process.exitCode = EXIT.interrupted;
        else if (result.stopReason) {
          process.stderr.write(
            `intercode: stopped early: ${result.stopReason} (finished episodes are kept; fix the cause and run again with --resume)\n`,
          );
          process.exitCode = EXIT.unavailable;
        }
      } finally {
        bar?.stop();
        if (agent instanceof HumanAgent) agent.close();
        await factory.close();
        await provider.close();
      }
    });
}
