import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { CostBudget } from '../agents/llm/cost-budget.js';
import { PrefixStore } from '../agents/llm/strategies/prefix-store.js';
import type { Dataset, Task } from '../core/task.js';
import type { Reporter } from '../harness/reporter.js';
import type { RunPlan } from '../harness/run-plan.js';
import type { RunDescription, SkippedTask } from '../harness/run-summary.js';
import { datasetChecksum } from '../queue/dataset-checksum.js';
import { gatherRun } from '../queue/gather-run.js';
import { redisUrlForDisplay } from '../queue/redis-url.js';
import type { AgentSpec } from '../queue/run-meta.js';
import { EXIT } from './exit-codes.js';
import { interruptSignal, stopGracefully } from './interrupt.js';
import type { LlmFlags } from './llm-flags.js';
import { llmSpecOf } from './llm-spec.js';
import { packageVersion } from './package-version.js';
import { ProgressBarReporter } from './reporters/progress-bar-reporter.js';
import { SummaryReporter } from './reporters/summary-reporter.js';

export interface DistributedRunSetup {
  readonly redis: string;
  readonly queue: string;
  readonly plan: RunPlan;
  readonly dataset: Dataset;
  readonly tasks: readonly Task[];
  readonly skipped: readonly SkippedTask[];
  readonly agent: 'gold' | 'replay' | 'llm';
  readonly trajectories: readonly string[];
  /** The language-model flags of an `llm` run (sent to the workers as {@link llmSpecOf} says). */
  readonly llm?: LlmFlags;
  /** The model and strategy of an `llm` run, as the gatherer's checked agent names them (the summary's). */
  readonly llmAgent?: { readonly model: string; readonly strategy: string };
  /** `--max-cost`: the gatherer enforces it over the gathered episodes' cost. */
  readonly budget?: CostBudget;
  readonly samples: number;
  readonly maxTurns: number;
  readonly maxAttempts: number;
  readonly outDir: string;
  readonly resume: boolean;
  readonly json: boolean;
}

/** The summary's setup of a run that no local env opened: what `plan.open` would say. */
function descriptionOf(setup: DistributedRunSetup): RunDescription {
  return {
    ...setup.plan.describe(setup.dataset.id),
    agent: setup.agent,
    ...(setup.llmAgent ? { model: setup.llmAgent.model, strategy: setup.llmAgent.strategy } : {}),
    maxTurns: setup.maxTurns,
  };
}

/**
 * `intercode run --redis`: the episodes go to the queue's workers and come back into the run
 * directory; the progress bar shows the workers seen and episodes per second.
 */
export async function runDistributed(setup: DistributedRunSetup): Promise<void> {
  const agent: AgentSpec =
    setup.agent === 'gold'
      ? { kind: 'gold' }
      : setup.agent === 'llm'
        ? llmSpecOf(setup.llm ?? {})
        : {
            kind: 'replay',
            trajectories: setup.trajectories.map((path) => ({
              name: basename(path),
              text: readFileSync(path, 'utf8'),
            })),
          };
  // The prompt prefixes the workers' language-model records name land in the run's prefixes.json.
  const prefixes = setup.agent === 'llm' ? new PrefixStore(setup.outDir) : undefined;
  const progress = process.stderr.isTTY && !setup.json ? new ProgressBarReporter() : undefined;
  const reporters: Reporter[] = [new SummaryReporter({ json: setup.json })];
  if (progress) reporters.unshift(progress);
  const say = (line: string) => {
    if (progress) progress.note(line);
    else process.stderr.write(`intercode: ${line}\n`);
  };
  stopGracefully();
  try {
    const end = await gatherRun({
      redisUrl: setup.redis,
      queue: setup.queue,
      tasks: setup.tasks,
      samples: setup.samples,
      skipped: setup.skipped,
      description: descriptionOf(setup),
      meta: {
        version: packageVersion(),
        config: setup.plan.pinnedConfig(),
        agent,
        maxTurns: setup.maxTurns,
        scoreEveryTurn: setup.plan.definition.scoreEveryTurn ?? true,
        samples: setup.samples,
        dataset: setup.dataset.id,
        datasetChecksum: await datasetChecksum(setup.dataset),
      },
      outDir: setup.outDir,
      resume: setup.resume,
      ...(prefixes ? { prefixes } : {}),
      ...(setup.budget ? { budget: setup.budget } : {}),
      maxAttempts: setup.maxAttempts,
      signal: interruptSignal,
      reporters,
      onRefusal: (worker, reason) => say(`worker ${worker} refused: ${reason}`),
      onWorkers: (live, seen) => progress?.onWorkers(live, seen),
      onRedisLost: (reason) =>
        say(`lost ${redisUrlForDisplay(setup.redis)} (${reason}); the run goes on when it is back`),
    });
    if (end.interrupted) process.exitCode = EXIT.interrupted;
    else if (end.stopReason !== undefined)
      say(
        `stopped before the cost cap: ${end.stopReason} (finished episodes are kept; raise --max-cost and run again with --resume)`,
      );
  } finally {
    progress?.stop();
  }
}
