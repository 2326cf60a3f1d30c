import type { Command } from 'commander';
import { HumanAgent } from '../../agents/human-agent.js';
import { UsageError } from '../../core/errors.js';
import { resolveDataset } from '../../datasets/resolve-dataset.js';
import { createEnvRegistry } from '../../envs/env-registry.js';
import { playEpisode } from '../../harness/play-episode.js';
import { createProviderRegistry } from '../../sandbox/provider-registry.js';
import { resolveEnvOption } from '../env-option.js';
import { positiveInteger } from '../options.js';

interface PlayFlags {
  env?: string;
  task: number;
  backend: string;
  image?: string;
  maxTurns: number;
  engine?: string;
  dbUrl?: string;
}

export function registerPlay(program: Command): void {
  program
    .command('play')
    .description('play one episode yourself at the terminal; the reward and its parts are shown at the end')
    .argument('<dataset>', 'dataset id or task file')
    .option('--env <env>', 'environment, needed for a task file (a name or ./my-env.js)')
    .option('--task <n>', 'task index', (value) => Number.parseInt(value, 10), 0)
    .option('--backend <backend>', 'sandbox backend', 'bwrap')
    .option('--image <image>', "sandbox image (default: the environment's, else host)")
    .option('--engine <engine>', 'SQL engine: sqlite (default), mysql, postgres')
    .option('--db-url <url>', 'a mysql:// or postgres:// server to use instead of starting one')
    .option('--max-turns <n>', 'turns before the episode is cut', positiveInteger('--max-turns'), 50)
    .action(async (datasetArg: string, flags: PlayFlags) => {
      const envs = createEnvRegistry();
      const dataset = await resolveDataset(datasetArg, { env: await resolveEnvOption(flags.env, envs) });
      const task = dataset.tasks[flags.task];
      if (!Number.isInteger(flags.task) || !task) {
        throw new UsageError(
          `--task: task index ${flags.task} is out of range 0-${dataset.tasks.length - 1} for ${dataset.id}`,
        );
      }
      const definition = envs.get(dataset.env);
      const provider = createProviderRegistry().get(flags.backend)();
      const agent = new HumanAgent();
      const factory = await definition.open({
        dataset,
        provider,
        ...(flags.image ? { image: flags.image } : {}),
        ...(flags.engine ? { engine: flags.engine } : {}),
        ...(flags.dbUrl ? { dbUrl: flags.dbUrl } : {}),
      });
      const env = factory.create();
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
        await factory.close();
        await provider.close();
      }
    });
}
