import type { Env } from '../core/env.js';
import type { Dataset, Task } from '../core/task.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import type { SqlEngineName } from '../sql/engine/sql-engine-name.js';
import type { ToolRequirement } from './define-environment.js';

/** How an env handles commands: `fixed` (default), or `upstream` to reproduce the original's bugs. */
export type Compat = 'fixed' | 'upstream';

/** The values of {@link Compat}, for option parsers. */
export const COMPAT_MODES: readonly Compat[] = ['fixed', 'upstream'];

/** What an environment whose episodes run in sandboxes is opened with (Bash, Python, CTF, user envs). */
export interface SandboxEnvConfig {
  readonly kind: 'sandbox';
  readonly provider: SandboxProvider;
  /** Sandbox image; without it, the env's own choice, else the backend's default image. */
  readonly image?: string;
  /** Only for envs that declare `compat` support (Bash, Python). */
  readonly compat?: Compat;
  /** Deterministic mode (`SandboxSpec.deterministic`), for every sandbox of the env. */
  readonly deterministic?: { readonly clockMs: number };
  /**
   * Warm pool: the next episode's sandboxes made ready while the current one runs (default on;
   * `false`, or `INTERCODE_WARM_POOL=off` for the whole process, turns it off).
   */
  readonly warm?: boolean;
  /** Gold cache (`SandboxEnvOptions.goldCache`): default on in deterministic mode. */
  readonly goldCache?: boolean;
}

/** What the SQL environment is opened with. */
export interface SqlEnvConfig {
  readonly kind: 'sql';
  /** Default `sqlite`. */
  readonly engine?: SqlEngineName;
  /** A `mysql://` or `postgres://` server of the user's; without it, the project starts its own. */
  readonly dbUrl?: string;
  /** Give the agent the tables and columns of the database (the paper's Table 5). */
  readonly handicap?: boolean;
}

/** The configuration of one environment kind, discriminated by `kind`. */
export type EnvConfig = SandboxEnvConfig | SqlEnvConfig;

/** What a run asks of an environment: the dataset, the kind's own configuration, the action limit. */
export interface EnvOpenOptions<Config extends EnvConfig = EnvConfig> {
  readonly dataset: Dataset;
  readonly config: Config;
  /** Time limit of one agent action, ms (each env has its default). */
  readonly actionTimeoutMs?: number;
  /**
   * Envs a run plays on at once, each for the whole run (what the factory prepares ahead of need);
   * none: envs are made and closed on demand (a server's sessions).
   */
  readonly concurrency?: number;
}

/** Makes envs for one run; what they share (a database server, prepared databases) lives here. */
export interface EnvFactory {
  create(): Env;
  /** The SQL engine the envs run on, for the run's summary. */
  readonly engine?: string;
  /** Releases what the envs shared. */
  close(): Promise<void>;
}

interface EnvDefinitionBase {
  /** The actions that play a task's gold solution (the env's self-test). */
  readonly goldActions: (task: Task) => string[];
  /** Score after every action and stop at reward 1 (Try Again); default true. */
  readonly scoreEveryTurn?: boolean;
  /** Commands its tasks need in the sandbox image (`intercode doctor` checks them on the host). */
  readonly tools?: readonly ToolRequirement[];
  /** Why a task cannot run here; `intercode run` skips such tasks unless --include-unrunnable. */
  readonly unrunnable?: (task: Task) => string | undefined;
}

/** An environment kind whose episodes run in sandboxes. */
export interface SandboxEnvDefinition extends EnvDefinitionBase {
  readonly kind: 'sandbox';
  /** Whether it takes `compat: 'upstream'` (`--compat`); others refuse it. */
  readonly supportsCompat?: boolean;
  /** The image it runs on when the run names none (a user env's `image.name`); else the backend's default. */
  readonly image?: string;
  readonly open: (options: EnvOpenOptions<SandboxEnvConfig>) => Promise<EnvFactory>;
}

/** The SQL environment kind: episodes run on a database engine, not in sandboxes. */
export interface SqlEnvDefinition extends EnvDefinitionBase {
  readonly kind: 'sql';
  readonly open: (options: EnvOpenOptions<SqlEnvConfig>) => Promise<EnvFactory>;
}

/** One environment kind: how to open it for a run and how its gold solution is played. */
export type EnvDefinition = SandboxEnvDefinition | SqlEnvDefinition;
