import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../core/errors.js';
import type { Registry } from '../core/registry.js';
import { isDefinedEnvironment } from '../envs/define-environment.js';
import type { EnvDefinition } from '../envs/env-definition.js';

/** A module path rather than an env name: it has a slash or a JavaScript extension. */
function isModulePath(value: string): boolean {
  return value.includes('/') || value.includes('\\') || /\.[cm]?js$/i.test(value);
}

/**
 * The `--env` option: a registered name is returned as is; a module path is imported, its default
 * export (a `defineEnvironment(...)` result) registered in `registry`, and its name returned.
 * A bad path or module gives a one-line UsageError.
 */
export async function resolveEnvOption(
  value: string | undefined,
  registry: Registry<EnvDefinition>,
): Promise<string | undefined> {
  if (value === undefined || !isModulePath(value)) return value;
  const path = resolve(value);
  if (!existsSync(path)) throw new UsageError(`--env: environment module ${value} does not exist`);
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (error) {
    const message = String((error as Error)?.message ?? error).split('\n')[0];
    throw new UsageError(`--env: cannot load ${value}: ${message}`);
  }
  const definition = module.default;
  if (!isDefinedEnvironment(definition)) {
    throw new UsageError(
      `--env: ${value} has no environment as its default export (export default defineEnvironment({...}))`,
    );
  }
  if (registry.has(definition.name)) {
    if (registry.get(definition.name) === definition) return definition.name;
    throw new UsageError(
      `--env: ${value} defines "${definition.name}", the name of a built-in environment; choose another name`,
    );
  }
  registry.register(definition.name, definition, definition.description);
  return definition.name;
}
