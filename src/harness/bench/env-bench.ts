import { toAction } from '../../core/action.js';
import type { Env, ForkResult } from '../../core/env.js';
import { IntercodeError } from '../../core/errors.js';
import type { Task } from '../../core/task.js';
import { type BenchFigure, type BenchTarget, figure } from './bench-figure.js';

export interface EnvBenchOptions {
  readonly backend: string;
  /** Figure group, e.g. `bash (demo/bash)`. */
  readonly group: string;
  readonly tasks: readonly Task[];
  /**
   * Tasks each env plays once before it is measured (its sessions and file systems warm), distinct
   * from the measured ones so that nothing task-specific is cached. Default: none beyond one episode.
   */
  readonly warmupTasks?: readonly Task[];
  readonly createEnv: () => Env;
  readonly goldActions: (task: Task) => string[];
  /** Whole gold episodes measured one by one. */
  readonly samples: number;
  /** Concurrency levels of the throughput figure. */
  readonly concurrency: readonly number[];
  readonly targets?: {
    readonly episode?: BenchTarget;
    /** Of `fork(8)` mid-episode, measured where the environment can fork. */
    readonly fork?: BenchTarget;
    /** Of a new env's construction to its first observation, and of its close after an episode. */
    readonly construction?: BenchTarget;
    readonly close?: BenchTarget;
    readonly throughput?: Readonly<Record<number, BenchTarget>>;
  };
  readonly onProgress?: (message: string) => void;
}

async function timed<T>(action: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await action();
  return [value, performance.now() - started];
}

/** Plays one gold episode and returns the time of each phase. */
export async function goldEpisode(env: Env, task: Task, actions: readonly string[]) {
  const [, reset] = await timed(() => env.reset({ taskId: task.id }));
  let step = 0;
  for (const action of actions) step += (await timed(() => env.step(action)))[1];
  const [score, scoring] = await timed(() => env.score());
  return { reset, step, score: scoring, value: score.value };
}

/**
 * Plays `count` gold episodes over `tasks` (in turn) with `envs` at once, each env taking the next
 * task when done; the wall time in milliseconds.
 */
export async function playAtOnce(
  envs: readonly Env[],
  tasks: readonly Task[],
  count: number,
  goldActions: (task: Task) => readonly string[],
): Promise<number> {
  let next = 0;
  const [, wall] = await timed(() =>
    Promise.all(
      envs.map(async (worker) => {
        while (next < count) {
          const task = tasks[next++ % tasks.length]!;
          await goldEpisode(worker, task, goldActions(task));
        }
      }),
    ),
  );
  return wall;
}

/**
 * Life-cycle times of `count` new environments, one after another: construction up to the first
 * observation (`createEnv()` and the first `reset`: sandboxes, shells, interpreters, sessions
 * started), then, after the gold actions and the score, `close()` (everything released).
 */
async function lifeCycleTimes(
  createEnv: () => Env,
  tasks: readonly Task[],
  goldActions: (task: Task) => string[],
  count: number,
): Promise<{ construction: number[]; close: number[] }> {
  const times = { construction: [] as number[], close: [] as number[] };
  for (let i = 0; i < count; i += 1) {
    const task = tasks[i % tasks.length]!;
    const [env, built] = await timed(async () => {
      const created = createEnv();
      await created.reset({ taskId: task.id });
      return created;
    });
    times.construction.push(built);
    for (const action of goldActions(task)) await env.step(action);
    await env.score();
    times.close.push((await timed(() => env.close()))[1]);
  }
  return times;
}

/**
 * Times of `fork(8)` mid-episode, after each task's gold actions up to its submission (a submission
 * ends the episode: MBPP's spends the agent's interpreter, so a fork after it would time a restart),
 * and of the fork together with the task's first
 * gold action played in all 8 copies at once (a copy may open what it needs at its first use: this is
 * what a group rollout pays); the copies are closed after each. None when the environment cannot
 * fork in this setting (`ENV_FORK_UNSUPPORTED`, e.g. a server SQL engine).
 */
async function forkTimes(
  env: Env,
  tasks: readonly Task[],
  goldActions: (task: Task) => string[],
  samples: number,
): Promise<{ fork: number[]; played: number[] }> {
  const times = { fork: [] as number[], played: [] as number[] };
  const fork = env.fork?.bind(env);
  if (!fork) return times;
  for (let i = 0; i < samples; i += 1) {
    const task = tasks[i % tasks.length]!;
    const actions = goldActions(task);
    const submission = actions.findIndex((action) => toAction(action).type === 'submit');
    await env.reset({ taskId: task.id });
    for (const action of submission < 0 ? actions : actions.slice(0, submission)) await env.step(action);
    let forked: ForkResult;
    const started = performance.now();
    try {
      const [result, took] = await timed(() => fork(8));
      forked = result;
      times.fork.push(took);
    } catch (error) {
      if (IntercodeError.isInstance(error) && error.code === 'ENV_FORK_UNSUPPORTED')
        return { fork: [], played: [] };
      throw error;
    }
    const first = actions[0];
    if (first !== undefined) {
      await Promise.all(forked.envs.map((copy) => copy.step(first)));
      times.played.push(performance.now() - started);
    }
    await Promise.all(forked.envs.map((copy) => copy.close()));
  }
  return times;
}

/**
 * The memory of what the env holds idle for its next episode (`Env.warmPool`), in MiB, sampled
 * `samples` times, each once the pool is full (a pool fills while nothing is asked of the env; at
 * most 5 s are waited for it).
 */
async function warmPoolMemory(env: Env, samples: number): Promise<number[]> {
  const warmPool = env.warmPool?.bind(env);
  if (!warmPool) return [];
  const mib: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const deadline = performance.now() + 5_000;
    let stats = await warmPool();
    while (stats.idle < stats.limit && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stats = await warmPool();
    }
    mib.push(stats.memoryBytes / 2 ** 20);
  }
  return mib;
}

/**
 * Episode-level figures of an environment with the gold agent: reset, step, score, a whole gold
 * episode (reset, the gold actions, score with the evaluator), `fork(8)` where the environment can
 * fork, a new env's construction and close, episodes per second, and the idle warm pool's memory
 * where the environment keeps one.
 */
export async function runEnvBench(options: EnvBenchOptions): Promise<BenchFigure[]> {
  const { backend, group, tasks } = options;
  const progress = options.onProgress ?? (() => {});
  const env = options.createEnv();
  const phases = {
    reset: [] as number[],
    step: [] as number[],
    score: [] as number[],
    episode: [] as number[],
    fork: [] as number[],
    forkPlayed: [] as number[],
    pool: [] as number[],
  };
  try {
    progress(`${group}: warm-up`);
    for (const task of options.warmupTasks ?? tasks.slice(0, 1))
      await goldEpisode(env, task, options.goldActions(task));
    progress(`${group}: gold episodes`);
    for (let i = 0; i < options.samples; i += 1) {
      const task = tasks[i % tasks.length]!;
      const [times, total] = await timed(() => goldEpisode(env, task, options.goldActions(task)));
      phases.reset.push(times.reset);
      phases.step.push(times.step);
      phases.score.push(times.score);
      phases.episode.push(total);
    }
    if (env.fork) {
      progress(`${group}: fork(8)`);
      const forks = await forkTimes(env, tasks, options.goldActions, options.samples);
      phases.fork.push(...forks.fork);
      phases.forkPlayed.push(...forks.played);
    }
    progress(`${group}: idle warm pool`);
    phases.pool.push(...(await warmPoolMemory(env, options.samples)));
  } finally {
    await env.close();
  }
  const figures: BenchFigure[] = [
    figure({ backend, group, name: 'reset', unit: 'ms' }, phases.reset),
    figure({ backend, group, name: 'step (gold actions)', unit: 'ms' }, phases.step),
    figure({ backend, group, name: 'score (evaluator compared)', unit: 'ms' }, phases.score),
    figure(
      {
        backend,
        group,
        name: 'whole gold episode',
        unit: 'ms',
        ...(options.targets?.episode ? { target: options.targets.episode } : {}),
      },
      phases.episode,
    ),
  ];
  progress(`${group}: construction and close`);
  const life = await lifeCycleTimes(
    options.createEnv,
    tasks,
    options.goldActions,
    Math.max(5, Math.ceil(options.samples / 5)),
  );
  const lifeTargets = options.targets ?? {};
  figures.push(
    figure(
      {
        backend,
        group,
        name: 'env construction to first observation',
        unit: 'ms',
        ...(lifeTargets.construction ? { target: lifeTargets.construction } : {}),
      },
      life.construction,
    ),
    figure(
      {
        backend,
        group,
        name: 'env close',
        unit: 'ms',
        ...(lifeTargets.close ? { target: lifeTargets.close } : {}),
      },
      life.close,
    ),
  );
  if (phases.fork.length > 0) {
    const target = options.targets?.fork;
    figures.push(
      figure(
        { backend, group, name: 'fork(8) after the gold actions', unit: 'ms', ...(target ? { target } : {}) },
        phases.fork,
      ),
    );
  }
  if (phases.forkPlayed.length > 0) {
    figures.push(
      figure(
        { backend, group, name: 'fork(8) and a gold action in each copy', unit: 'ms' },
        phases.forkPlayed,
      ),
    );
  }
  if (phases.pool.length > 0) {
    figures.push(figure({ backend, group, name: 'idle warm pool memory', unit: 'MiB' }, phases.pool));
  }
  for (const concurrency of options.concurrency) {
    progress(`${group}: throughput at concurrency ${concurrency}`);
    const envs = Array.from({ length: concurrency }, () => options.createEnv());
    const episodes = Math.max(options.samples, tasks.length);
    try {
      // Each env plays the warm-up tasks first so that every worker is warm when the clock starts.
      const warmup = options.warmupTasks ?? tasks.slice(0, 1);
      await Promise.all(
        envs.map(async (worker) => {
          for (const task of warmup) await goldEpisode(worker, task, options.goldActions(task));
        }),
      );
      const wall = await playAtOnce(envs, tasks, episodes, options.goldActions);
      const target = options.targets?.throughput?.[concurrency];
      figures.push(
        figure(
          {
            backend,
            group,
            name: `gold episodes per second, concurrency ${concurrency}`,
            unit: 'episodes/s',
            ...(target ? { target } : {}),
          },
          [(episodes / wall) * 1000],
        ),
      );
    } finally {
      await Promise.all(envs.map((worker) => worker.close()));
    }
  }
  return figures;
}
