import type { Action } from '../core/action.js';
import { toAction } from '../core/action.js';
import type {
  Env,
  Observation,
  ResetInfo,
  ResetOptions,
  Score,
  StepResult,
  WarmPoolStats,
} from '../core/env.js';
import { EnvError } from '../core/errors.js';
import { shellQuote } from '../core/shell-quote.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { skipStep } from './control-steps.js';
import type {
  ActionOutcome,
  EnvironmentSpec,
  EpisodeContext,
  HistoryEntry,
  RewardContext,
} from './define-environment.js';
import type { EnvOpenOptions, SandboxEnvConfig } from './env-definition.js';
import { ownSpareWanted } from './sandbox-env-options.js';
import { copyTaskFiles } from './task-files.js';
import { pickTask } from './task-picker.js';
import { envWarmPool, type SpareKind, WarmSpare } from './warm-spare.js';

const DEFAULT_TIMEOUT_MS = 10_000;

/** The default action runner: the persistent bash session, output = stdout + stderr. */
async function shellRun(action: string, context: EpisodeContext): Promise<ActionOutcome> {
  const result = await context.shell.run(action, { timeoutMs: context.timeoutMs });
  const output = result.timedOut
    ? `${result.output}${result.output.endsWith('\n') || result.output === '' ? '' : '\n'}[command timed out after ${context.timeoutMs / 1000} s]\n`
    : result.output;
  return {
    output,
    admissible: result.exitCode === 0 && !result.timedOut,
    ...(result.exitCode !== null ? { exitCode: result.exitCode } : {}),
    ...(result.timedOut ? { timedOut: true } : {}),
  };
}

function toScore(result: Score | number): Score {
  return typeof result === 'number' ? { value: result } : result;
}

/** A sandbox as the item of the warm spare: renewed by its reset. */
const SANDBOX_SPARE: SpareKind<Sandbox> = {
  sandboxes: (sandbox) => [sandbox],
  renew: (sandbox) => sandbox.reset(),
  close: (sandbox) => sandbox.close(),
};

/**
 * The Env of a {@link defineEnvironment} spec: one sandbox per env, reset between episodes; with
 * the warm pool, a second one made ready (the last episode's renewed) while an episode runs.
 */
export class DefinedEnv implements Env {
  readonly #spec: EnvironmentSpec;
  readonly #options: EnvOpenOptions<SandboxEnvConfig>;
  #sandbox: Sandbox | undefined;
  #pristine = true;
  #context: EpisodeContext | undefined;
  #history: HistoryEntry[] = [];
  #submission: string | undefined;
  #lastOutput = '';
  #closed = false;
  /** The sandbox made ready for the next episode (the warm pool), unless it is off. */
  readonly #spare: WarmSpare<Sandbox> | undefined;

  constructor(spec: EnvironmentSpec, options: EnvOpenOptions<SandboxEnvConfig>) {
    this.#spec = spec;
    this.#options = options;
    this.#spare = ownSpareWanted(options.config) ? new WarmSpare(1, SANDBOX_SPARE) : undefined;
  }

  get #timeoutMs(): number {
    return this.#options.actionTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** A new sandbox of the env's spec (none kept if the env is closed meanwhile). */
  async #create(): Promise<Sandbox> {
    const { provider, image, deterministic } = this.#options.config;
    const sandbox = await provider.create({
      image: image ?? this.#spec.image?.name ?? provider.defaultImage,
      ...(deterministic ? { deterministic } : {}),
      timeoutMs: this.#timeoutMs,
      label: this.#spec.name,
    });
    // close() ran while the sandbox started (a caller that gave up on the reset): do not keep it.
    if (this.#closed) {
      await sandbox.close();
      throw new EnvError('ENV_CLOSED', 'the environment was closed during its reset');
    }
    return sandbox;
  }

  /**
   * A pristine sandbox for the next episode: the warm spare, the last episode's sandbox then renewed
   * in the background as the next spare; else the env's sandbox reset (or a new one), and a spare
   * prepared for the episode after.
   */
  async #freshSandbox(): Promise<Sandbox> {
    const used = this.#sandbox;
    const spare = await this.#spare?.swap({
      usable: () => true,
      used,
      reusable: () => true,
      make: () => this.#create(),
    });
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'the environment was closed during its reset');
    if (spare) {
      this.#sandbox = spare;
      this.#pristine = false;
      return spare;
    }
    if (!this.#sandbox) {
      this.#sandbox = await this.#create();
      this.#pristine = true;
    }
    if (!this.#pristine) await this.#sandbox.reset();
    this.#pristine = false;
    this.#spare?.hold(() => this.#create());
    return this.#sandbox;
  }

  /** The sandbox held ready for the next episode (none without the warm pool). */
  async warmPool(): Promise<WarmPoolStats> {
    return envWarmPool(this.#spare, this.#options.config.provider, this.#sandbox ? [this.#sandbox] : []);
  }

  async reset(options: ResetOptions = {}): Promise<{ observation: Observation; info: ResetInfo }> {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'the environment is closed');
    const task = pickTask(this.#options.dataset.tasks, options);
    const started = performance.now();
    this.#context = undefined;
    const sandbox = await this.#freshSandbox();
    const dataset = this.#options.dataset;
    await copyTaskFiles(sandbox, this.#spec.taskFiles?.(task, dataset) ?? []);
    const shell = sandbox.session();
    const workdir = this.#spec.workdir?.(task);
    if (workdir !== undefined && workdir !== '/') {
      const result = await shell.run(`mkdir -p -- ${shellQuote(workdir)} && cd -- ${shellQuote(workdir)}`);
      if (result.exitCode !== 0) {
        throw new EnvError(
          'ENV_INVALID_ACTION',
          `${this.#spec.name}: cannot enter ${workdir}: ${result.output.trim()}`,
        );
      }
    }
    this.#history = [];
    this.#submission = undefined;
    this.#lastOutput = task.query;
    const history = this.#history;
    const timeoutMs = this.#timeoutMs;
    this.#context = {
      task,
      dataset,
      sandbox,
      shell,
      timeoutMs,
      get history() {
        return history;
      },
    };
    await this.#spec.setup?.(this.#context);
    return {
      observation: { text: task.query, durationMs: performance.now() - started },
      info: {
        taskId: task.id,
        index: task.index,
        query: task.query,
        gold: task.gold,
        group: task.group,
        ...this.#spec.resetInfo?.(task),
      },
    };
  }

  #require(): EpisodeContext {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'the environment is closed');
    if (!this.#context) throw new EnvError('ENV_RESET_NEEDED', 'call reset() before step()');
    return this.#context;
  }

  #run(code: string, context: EpisodeContext): Promise<ActionOutcome> {
    return this.#spec.run ? this.#spec.run(code, context) : shellRun(code, context);
  }

  async #score(submission: string | undefined): Promise<Score> {
    const context = this.#require();
    const rewardContext: RewardContext = {
      ...context,
      history: this.#history,
      submission,
      run: (code) => this.#run(code, context),
    };
    return toScore(await this.#spec.reward(rewardContext));
  }

  async step(input: Action | string): Promise<StepResult> {
    const context = this.#require();
    const action = toAction(input);
    if (action.type === 'skip') return skipStep();
    const started = performance.now();
    if (action.type === 'submit') {
      this.#submission = action.answer;
      const score = await this.#score(action.answer);
      const retry = this.#spec.retryMessage !== undefined && score.value < 1;
      const text = retry ? this.#spec.retryMessage! : this.#lastOutput;
      return {
        observation: { text, durationMs: performance.now() - started },
        reward: score.value,
        terminated: !retry,
        truncated: false,
        info: { admissible: true, score },
      };
    }
    const outcome = await this.#run(action.code, context);
    const admissible = outcome.admissible ?? true;
    this.#history.push({ action: action.code, output: outcome.output, admissible });
    this.#lastOutput = outcome.output;
    return {
      observation: {
        text: outcome.output,
        durationMs: performance.now() - started,
        ...(outcome.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}),
        ...(outcome.timedOut ? { timedOut: true } : {}),
      },
      reward: 0,
      terminated: false,
      truncated: false,
      info: { admissible },
    };
  }

  /** The score of the last submission (none yet: the state as it is, with no submitted text). */
  score(): Promise<Score> {
    return this.#score(this.#submission);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#context = undefined;
    const sandbox = this.#sandbox;
    this.#sandbox = undefined;
    await Promise.all([sandbox?.close(), this.#spare?.close()]);
  }
}
