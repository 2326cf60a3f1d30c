import type { Env } from '../../core/env.js';
import type { Task } from '../../core/task.js';
import { type BenchFigure, figure } from './bench-figure.js';
import { goldEpisode, playAtOnce } from './env-bench.js';

export interface KeptGoldBenchOptions {
  readonly backend: string;
  readonly group: string;
  readonly tasks: readonly Task[];
  /** Envs with the gold cache on (`SandboxEnvOptions.goldCache`). */
  readonly createEnv: () => Env;
  readonly goldActions: (task: Task) => string[];
  readonly samples: number;
  readonly onProgress?: (message: string) => void;
}

/**
 * Figures of episodes whose task this process played before (training epochs, `--samples`, a
 * server's sessions), where the gold cache answers for the gold's run and the evaluation sandbox
 * stays untouched: the first `samples` tasks are played once, then measured one by one, then by
 * two envs at once. The other episode figures measure tasks played for the first time (the cache
 * off), as a single pass over a dataset runs them.
 */
export async function runKeptGoldBench(options: KeptGoldBenchOptions): Promise<BenchFigure[]> {
  const { backend, group, goldActions, samples } = options;
  const tasks = options.tasks.slice(0, Math.max(1, Math.min(samples, options.tasks.length)));
  const progress = options.onProgress ?? (() => {});
  const envs = [options.createEnv(), options.createEnv()];
  const [env, other] = envs as [Env, Env];
  try {
    progress(`${group}: tasks played before (gold kept)`);
    for (const task of tasks) await goldEpisode(env, task, goldActions(task));
    await goldEpisode(other, tasks[0]!, goldActions(tasks[0]!));
    const episodes: number[] = [];
    for (let i = 0; i < samples; i += 1) {
      const task = tasks[i % tasks.length]!;
      const started = performance.now();
      await goldEpisode(env, task, goldActions(task));
      episodes.push(performance.now() - started);
    }
    const count = Math.max(samples, tasks.length);
    const wall = await playAtOnce(envs, tasks, count, goldActions);
    return [
      figure(
        { backend, group, name: 'whole gold episode, task played before (gold kept)', unit: 'ms' },
        episodes,
      ),
      figure(
        {
          backend,
          group,
          name: 'gold episodes per second, concurrency 2, tasks played before',
          unit: 'episodes/s',
        },
        [(count / wall) * 1000],
      ),
    ];
  } finally {
    await Promise.all(envs.map((worker) => worker.close()));
  }
}
