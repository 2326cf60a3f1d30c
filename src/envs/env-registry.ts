import type { Env } from '../core/env.js';
import { Registry } from '../core/registry.js';
import { joinedGold, type Task } from '../core/task.js';
import { bashGoldCommand } from './bash/nl2bash-errata.js';
import { ctfEnvironment } from './ctf/ctf-env.js';
import type { DefinedEnvironment } from './define-environment.js';
import type { EnvDefinition, SandboxEnvDefinition, SqlEnvDefinition } from './env-definition.js';
import { referenceFunctionName } from './python/function-names.js';
import type { SandboxEnvOptions } from './sandbox-env-options.js';
import { openSqlEnvs } from './sql/open-sql-envs.js';

function goldText(task: Task, separator: string): string {
  return joinedGold(task, separator) ?? '';
}

/**
 * Opens an env that runs in sandboxes and shares nothing between episodes but the run's options;
 * `load` gives its constructor (its module loads only for a run of it).
 */
function openSandboxEnvs(
  load: () => Promise<(options: SandboxEnvOptions) => Env>,
): SandboxEnvDefinition['open'] {
  return async ({ dataset, config, actionTimeoutMs }) => {
    const make = await load();
    const options: SandboxEnvOptions = {
      dataset,
      provider: config.provider,
      ...(config.image ? { image: config.image } : {}),
      ...(actionTimeoutMs ? { actionTimeoutMs } : {}),
      ...(config.compat ? { compat: config.compat } : {}),
      ...(config.deterministic ? { deterministic: config.deterministic } : {}),
      ...(config.warm === false ? { warm: false } : {}),
      ...(config.goldCache !== undefined ? { goldCache: config.goldCache } : {}),
    };
    return { create: () => make(options), close: async () => {} };
  };
}

const bash: SandboxEnvDefinition = {
  kind: 'sandbox',
  supportsCompat: true,
  open: openSandboxEnvs(async () => {
    const { BashEnv } = await import('./bash/bash-env.js');
    return (options) => new BashEnv(options);
  }),
  goldActions: (task) => [bashGoldCommand(task) ?? ''],
};

const sql: SqlEnvDefinition = {
  kind: 'sql',
  open: (options) => openSqlEnvs(options),
  goldActions: (task) => [goldText(task, ' ')],
};

const python: SandboxEnvDefinition = {
  kind: 'sandbox',
  supportsCompat: true,
  tools: [{ command: 'python3', debianPackage: 'python3' }],
  open: openSandboxEnvs(async () => {
    const { PythonEnv } = await import('./python/python-env.js');
    return (options) => new PythonEnv(options);
  }),
  // The gold code, then `submit <its function>`. A gold that does not start with `def ` gets a
  // leading `import builtins`: upstream's print-wrapping rule exempts code with an `import` but not
  // with `from … import`, and would wrap five MBPP golds in `print(…)`.
  goldActions: (task) => {
    const gold = goldText(task, '\n');
    const name = referenceFunctionName(gold);
    const code = gold.trimStart().startsWith('def ') ? gold : `import builtins\n${gold}`;
    return name === undefined ? [code] : [code, `submit ${name}`];
  },
};

/**
 * The environments intercode ships, registered explicitly, plus `extra` ones of the user's
 * (`defineEnvironment(...)` results), registered under their names.
 */
export function createEnvRegistry(extra: readonly DefinedEnvironment[] = []): Registry<EnvDefinition> {
  const registry = new Registry<EnvDefinition>('environment')
    .register('bash', bash, 'Bash shell on a task file system (NL2Bash)')
    .register('sql', sql, 'SQL queries on SQLite, MariaDB/MySQL or PostgreSQL (Spider, WikiSQL)')
    .register('ctf', ctfEnvironment(), 'capture the flag in a Bash sandbox with the task files (picoCTF)')
    .register('python', python, 'Python 3 interpreter: write a function that passes the tests (MBPP)');
  for (const definition of extra) registry.register(definition.name, definition, definition.description);
  return registry;
}
