import type { Env } from '../core/env.js';
import { Registry } from '../core/registry.js';
import type { Dataset, Task } from '../core/task.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import { BashEnv } from './bash/bash-env.js';

/** What every environment factory receives. */
export interface EnvContext {
  readonly dataset: Dataset;
  readonly provider: SandboxProvider;
  readonly image?: string;
  readonly actionTimeoutMs?: number;
  /** `upstream` reproduces the original's command handling (see each env's documentation). */
  readonly compat?: 'fixed' | 'upstream';
}

/** One environment kind: how to make it and how its gold solution is played. */
export interface EnvDefinition {
  readonly create: (context: EnvContext) => Env;
  /** The actions that play a task's gold solution (the env's self-test). */
  readonly goldActions: (task: Task) => string[];
}

function goldText(task: Task): string {
  if (task.gold === undefined) return '';
  return typeof task.gold === 'string' ? task.gold : task.gold.join(';');
}

/** The environments intercode ships, registered explicitly. */
export function createEnvRegistry(): Registry<EnvDefinition> {
  return new Registry<EnvDefinition>('environment').register(
    'bash',
    {
      create: (context) =>
        new BashEnv({
          dataset: context.dataset,
          provider: context.provider,
          ...(context.image ? { image: context.image } : {}),
          ...(context.actionTimeoutMs ? { actionTimeoutMs: context.actionTimeoutMs } : {}),
          ...(context.compat ? { compat: context.compat } : {}),
        }),
      goldActions: (task) => [goldText(task)],
    },
    'Bash shell on a task file system (NL2Bash)',
  );
}
