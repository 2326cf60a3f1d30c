import type { Score } from '../core/env.js';
import { UsageError } from '../core/errors.js';
import type { Dataset, Task } from '../core/task.js';
import type { Sandbox, ShellSession } from '../sandbox/sandbox.js';
import { DefinedEnv } from './defined-env.js';
import type { SandboxEnvDefinition } from './env-definition.js';

/** A command an environment's tasks call, and the Debian package that provides it (for `intercode doctor`). */
export interface ToolRequirement {
  readonly command: string;
  readonly debianPackage: string;
}

/** The sandbox image an environment runs on by default and what it needs on it. */
export interface EnvironmentImage {
  /** Image name (`host`, `dir:/path`, `debian:<profile>`, …); default: the backend's (`intercode run --image` overrides both). */
  readonly name?: string;
  /** Commands the tasks need; `intercode doctor` lists the missing ones with the apt command. */
  readonly tools?: readonly ToolRequirement[];
}

/** A host file or folder copied into the sandbox at every reset. */
export interface TaskFile {
  /** Host path of a file or folder. */
  readonly from: string;
  /** Absolute path in the sandbox: the file itself, or the folder that receives the folder's content. */
  readonly to: string;
  /** Names (at any depth) left out of a copied folder, e.g. `solution`. */
  readonly exclude?: readonly string[];
}

/** One executed action of the current episode. */
export interface HistoryEntry {
  readonly action: string;
  readonly output: string;
  readonly admissible: boolean;
}

/** What an action produced. */
export interface ActionOutcome {
  /** The observation text (stdout and stderr for shell commands). */
  readonly output: string;
  /** The action ran without error; default: true. */
  readonly admissible?: boolean;
  readonly exitCode?: number;
  readonly timedOut?: boolean;
}

/** What the hooks of an environment get during an episode. */
export interface EpisodeContext {
  readonly task: Task;
  readonly dataset: Dataset;
  readonly sandbox: Sandbox;
  /** The sandbox's persistent shell, already in the task's working directory. */
  readonly shell: ShellSession;
  /** Time limit of one action, ms (`intercode run` default: 10 s). */
  readonly timeoutMs: number;
  /** The actions executed so far in this episode (submits and skips are not actions). */
  readonly history: readonly HistoryEntry[];
}

/** What `reward` gets: the episode plus the submitted text. */
export interface RewardContext extends EpisodeContext {
  /** Text after `submit` (the whole rest of the line, trimmed), undefined for a bare `submit`. */
  readonly submission: string | undefined;
  /** Runs code with the environment's action runner, outside the agent's history (e.g. a test). */
  run(code: string): Promise<ActionOutcome>;
}

/** A score as `reward` returns it: Score plus nothing, or a bare number. */
export type RewardResult = Score | number;

/** Everything an environment is: pass it to {@link defineEnvironment}. */
export interface EnvironmentSpec {
  /** Id of the environment (`--env <name>`, the `env` of a dataset), e.g. `node-repl`. */
  readonly name: string;
  /** One line for `intercode` listings. */
  readonly description: string;
  readonly image?: EnvironmentImage;
  /** Host files copied into the sandbox before each episode (task assets, helper scripts). */
  taskFiles?(task: Task, dataset: Dataset): readonly TaskFile[];
  /** Working directory of the shell at the start of an episode (created if missing), default `/`. */
  workdir?(task: Task): string;
  /** Runs once per episode after the task files are in place (start an interpreter, seed a file). */
  setup?(context: EpisodeContext): Promise<void>;
  /**
   * Executes one agent action. Default: the action runs in the sandbox's persistent bash session
   * with the per-action time limit; the output is stdout and stderr, admissible means exit code 0.
   */
  run?(action: string, context: EpisodeContext): Promise<ActionOutcome>;
  /** Scores the episode: on `submit`, and after every action when {@link scoreEveryTurn} is set. */
  reward(context: RewardContext): RewardResult | Promise<RewardResult>;
  /** Score after every action and stop at reward 1 (the paper's Try Again loop); default false. */
  readonly scoreEveryTurn?: boolean;
  /**
   * When set, a `submit` that scores below 1 does not end the episode: the agent sees this text and
   * keeps going (upstream's CTF loop). Without it, every `submit` ends the episode.
   */
  readonly retryMessage?: string;
  /** The actions that solve a task (`--agent gold`): the environment's self-test. */
  goldActions(task: Task): string[];
  /** Why a task cannot run here (needs the internet, files missing); such tasks are skipped by default. */
  unrunnable?(task: Task): string | undefined;
  /** Extra fields of the reset info of a task (e.g. which gold correction applies). */
  resetInfo?(task: Task): Readonly<Record<string, unknown>> | undefined;
}

/** Marks definitions made by {@link defineEnvironment}, across copies of the package. */
export const ENVIRONMENT_BRAND = Symbol.for('intercode.environment');

/** A definition made by {@link defineEnvironment}: an {@link EnvDefinition} with its name and spec. */
export interface DefinedEnvironment extends SandboxEnvDefinition {
  readonly name: string;
  readonly description: string;
  readonly spec: EnvironmentSpec;
  readonly [ENVIRONMENT_BRAND]: true;
}

const NAME = /^[a-z][a-z0-9-]*$/;

/**
 * Defines an environment without touching intercode's source. The result runs with
 * `intercode run <tasks> --env ./my-env.js` (as the module's default export) or can be registered
 * in an env registry.
 *
 * @example
 * export default defineEnvironment({
 *   name: 'echo',
 *   description: 'say the word',
 *   reward: ({ history, task }) => (history.at(-1)?.output.trim() === task.gold ? 1 : 0),
 *   goldActions: (task) => [`echo ${task.gold}`, 'submit'],
 * });
 */
export function defineEnvironment(spec: EnvironmentSpec): DefinedEnvironment {
  if (typeof spec !== 'object' || spec === null) throw new UsageError('defineEnvironment needs an object');
  if (typeof spec.name !== 'string' || !NAME.test(spec.name)) {
    throw new UsageError(
      `defineEnvironment: name must be lowercase letters, digits and dashes, got ${JSON.stringify(spec.name)}`,
    );
  }
  for (const hook of ['reward', 'goldActions'] as const) {
    if (typeof spec[hook] !== 'function') {
      throw new UsageError(`defineEnvironment(${spec.name}): ${hook} must be a function`);
    }
  }
  return {
    name: spec.name,
    description: spec.description ?? '',
    spec,
    kind: 'sandbox',
    scoreEveryTurn: spec.scoreEveryTurn ?? false,
    ...(spec.image?.tools ? { tools: spec.image.tools } : {}),
    ...(spec.image?.name ? { image: spec.image.name } : {}),
    open: async (options) => ({ create: () => new DefinedEnv(spec, options), close: async () => {} }),
    goldActions: (task) => spec.goldActions(task),
    ...(spec.unrunnable ? { unrunnable: (task: Task) => spec.unrunnable?.(task) } : {}),
    [ENVIRONMENT_BRAND]: true,
  };
}

/** Whether a value (e.g. a module's default export) was made by {@link defineEnvironment}. */
export function isDefinedEnvironment(value: unknown): value is DefinedEnvironment {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[ENVIRONMENT_BRAND] === true &&
    typeof (value as DefinedEnvironment).open === 'function' &&
    typeof (value as DefinedEnvironment).name === 'string'
  );
}
