import type { Command } from 'commander';
import { HumanAgent } from '../../agents/human-agent.js';
import { UsageError } from '../../core/errors.js';
import { playEpisode } from '../../harness/play-episode.js';
import { planRun } from '../../harness/run-plan.js';
import { addEnvOptions, type EnvFlags, positiveInteger, runConfigOf } from '../options.js';

interface PlayFlags extends EnvFlags {
  task: number;
  maxTurns: number;
}

function taskIndex(value: string): number {
  if (!/^\d+$/.test(value.trim()))
    throw new UsageError(`--task must be a task index (0, 1, …), got "${value}"`);
  return Number(value);
}

export function registerPlay(program: Command): void {
  const command = program
    .command('play')
    .description('play one episode yourself at the terminal; the reward and its parts are shown at the end')
    .argument('<dataset>', 'dataset id or task file')
    .option('--task <n>', 'task index', taskIndex, 0)
    .option('--max-turns <n>', 'turns before the episode is cut', positiveInteger('--max-turns'), 50);
  addEnvOptions(command).action(async (datasetArg: string, flags: PlayFlags) => {
    const plan = await planRun(runConfigOf(datasetArg, flags));
    const dataset = await plan.loadDataset();
    // Once the dataset is there: a run that fails before it starts says one line, its error.
    for (const notice of plan.notices) process.stderr.write(`intercode: ${notice}\n`);
    const task = dataset.tasks[flags.task];
    if (!task) {
      throw new UsageError(
        `--task: task index ${flags.task} is out of range 0-${dataset.tasks.length - 1} for ${dataset.id}`,
      );
    }
    const run = await plan.open(dataset);
    const agent = new HumanAgent();
    const env = run.createEnv();
    try {
      const record = await playEpisode(env, task, agent.episode(task), {
        maxTurns: flags.maxTurns,
        scoreEveryTurn: false,
        dataset: dataset.id,
      });
      const last = record.turns.at(-1);
      const submitted = record.terminated && last?.action.startsWith('submit');
      const score = submitted ? { value: last!.reward, parts: last!.parts } : await env.score();
      process.stdout.write(`\nreward ${score.value}${submitted ? '' : ' (scored without a submit)'}\n`);
      for (const [name, value] of Object.entries(score.parts ?? {}))
        process.stdout.write(`  ${name}: ${value}\n`);
      if (task.gold !== undefined)
        process.stdout.write(`gold: ${typeof task.gold === 'string' ? task.gold : task.gold.join('; ')}\n`);
    } finally {
      agent.close();
      await env.close();
      await run.close();
    }
  });
}
