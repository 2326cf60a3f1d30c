import { type Command, Option } from 'commander';
import { UsageError } from '../core/errors.js';
import { COMPAT_MODES, type Compat } from '../envs/env-definition.js';
import type { RunConfig } from '../harness/run-config.js';
import { SANDBOX_BACKENDS } from '../sandbox/backend-names.js';
import { SQL_ENGINES, type SqlEngineName } from '../sql/engine/sql-engine-name.js';

/** Parses a positive number option, naming the option in the error. */
export function positiveNumber(option: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number) || number <= 0) {
      throw new UsageError(`${option} must be a positive number, got "${value}"`);
    }
    return number;
  };
}

/** Parses a positive integer option, naming the option in the error. */
/** A parser of a TCP port option: an integer from 0 (a free port) to 65535. */
export function portNumber(option: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value.trim()) || number > 65535) {
      throw new UsageError(`${option} must be an integer from 0 to 65535, got "${value}"`);
    }
    return number;
  };
}

export function positiveInteger(option: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value.trim()) || number <= 0) {
      throw new UsageError(`${option} must be a positive integer, got "${value}"`);
    }
    return number;
  };
}

/** Parses a comma-separated list whose every item must be one of `choices`. */
export function listOf<T extends string>(option: string, choices: readonly T[]): (value: string) => T[] {
  return (value) => {
    const items = value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    const unknown = items.filter((item) => !(choices as readonly string[]).includes(item));
    if (items.length === 0 || unknown.length > 0) {
      throw new UsageError(
        `${option}: unknown ${unknown.length > 0 ? `"${unknown.join(', ')}"` : 'empty list'} (known: ${choices.join(', ')})`,
      );
    }
    return items as T[];
  };
}

/** The sandbox backends' names, for `.choices()`. */
export function backendNames(): string[] {
  return [...SANDBOX_BACKENDS];
}

/** `--backend`: no default value here, so that a command can tell whether it was given. */
export function backendOption(): Option {
  return new Option('--backend <backend>', 'sandbox backend (default: bwrap)').choices(backendNames());
}

/** `--image`: checked by the backend before any work. */
export function imageOption(): Option {
  return new Option(
    '--image <image>',
    "sandbox image: host, debian, debian:<profile>, dir:/path (bwrap), docker:<name> (docker); default: the environment's, else the backend's (bwrap host, docker debian)",
  );
}

/** The options that choose and configure a dataset's environment, as the command line gives them. */
export interface EnvFlags {
  env?: string;
  backend?: string;
  image?: string;
  compat?: Compat;
  deterministic?: boolean;
  engine?: SqlEngineName;
  dbUrl?: string;
  handicap?: boolean;
}

/**
 * Declares the environment options shared by the commands that play episodes (`run`, `play`), each
 * once, with its allowed values. An option that does not apply to the dataset's environment is
 * refused when the run is planned, never ignored.
 */
export function addEnvOptions(command: Command): Command {
  return command
    .option(
      '--env <env>',
      'environment, needed for a task file (bash, sql, python, ctf, or ./my-env.js exporting defineEnvironment(...))',
    )
    .addOption(backendOption())
    .addOption(imageOption())
    .addOption(
      new Option(
        '--compat <mode>',
        "Bash and Python: fixed (default), or upstream to reproduce the original's handling, bugs included",
      ).choices(COMPAT_MODES),
    )
    .option(
      '--deterministic',
      'Bash, Python, CTF: pin the clock, time zone, locale, hash seed and task file times (default for built-in datasets; needs libfaketime in the image)',
    )
    .option('--no-deterministic', 'run with the real clock and times (default for task files)')
    .addOption(new Option('--engine <engine>', 'SQL engine (default: sqlite)').choices(SQL_ENGINES))
    .option('--db-url <url>', 'SQL: a mysql:// or postgres:// server to use instead of starting one')
    .option('--handicap', 'SQL: give the agent the tables and columns of the database (paper Table 5)');
}

/** The run configuration of a dataset argument and the environment options. */
export function runConfigOf(dataset: string, flags: EnvFlags): RunConfig {
  const sandbox = {
    ...(flags.backend !== undefined ? { backend: flags.backend } : {}),
    ...(flags.image !== undefined ? { image: flags.image } : {}),
    ...(flags.compat !== undefined ? { compat: flags.compat } : {}),
    ...(flags.deterministic !== undefined ? { deterministic: flags.deterministic } : {}),
  };
  const sql = {
    ...(flags.engine !== undefined ? { engine: flags.engine } : {}),
    ...(flags.dbUrl !== undefined ? { dbUrl: flags.dbUrl } : {}),
    ...(flags.handicap ? { handicap: true } : {}),
  };
  return {
    dataset,
    ...(flags.env !== undefined ? { env: flags.env } : {}),
    ...(Object.keys(sandbox).length > 0 ? { sandbox } : {}),
    ...(Object.keys(sql).length > 0 ? { sql } : {}),
  };
}
