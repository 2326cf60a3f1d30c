import type { Env } from '../core/env.js';
import type { Dataset, Task } from '../core/task.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import type { ToolRequirement } from './define-environment.js';

/** What a run asks of an environment kind. Options an env does not use are ignored. */
export interface EnvOpenOptions {
  readonly dataset: Dataset;
  readonly provider: SandboxProvider;
  readonly image?: string;
  readonly actionTimeoutMs?: number;
  /** `upstream` reproduces the original's command handling (see each env's documentation). */
  readonly compat?: 'fixed' | 'upstream';
  /** SQL engine: `sqlite` (default), `mysql` or `postgres`. */
  readonly engine?: string;
  /** A database server of the user's for `mysql`/`postgres`; without it, the project starts its own. */
  readonly dbUrl?: string;
  /** SQL: add the schema hint to the task (the paper's Table 5). */
  readonly handicap?: boolean;
}

/** Makes envs for one run; what they share (a database server, prepared databases) lives here. */
export interface EnvFactory {
  create(): Env;
  /** The SQL engine the envs run on, for the run's summary. */
  readonly engine?: string;
  /** Releases what the envs shared. */
  close(): Promise<void>;
}

/** One environment kind: how to open it for a run and how its gold solution is played. */
export interface EnvDefinition {
  /** Whether its episodes run in sandboxes (so a run checks the sandbox backend first). */
  readonly usesSandbox: boolean;
  readonly open: (options: EnvOpenOptions) => Promise<EnvFactory>;
  /** The actions that play a task's gold solution (the env's self-test). */
  readonly goldActions: (task: Task) => string[];
  /** Score after every action and stop at reward 1 (Try Again); default true. */
  readonly scoreEveryTurn?: boolean;
  /** Commands its tasks need in the sandbox image (`intercode doctor` checks them on the host). */
  readonly tools?: readonly ToolRequirement[];
  /** Why a task cannot run here; `intercode run` skips such tasks unless --include-unrunnable. */
  readonly unrunnable?: (task: Task) => string | undefined;
}
