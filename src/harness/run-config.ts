import { UsageError } from '../core/errors.js';
import { COMPAT_MODES, type Compat, type EnvDefinition } from '../envs/env-definition.js';
import { isSqlEngineName, SQL_URL_SCHEMES, type SqlEngineName } from '../sql/engine/sql-engine-name.js';

/** Settings of environments whose episodes run in sandboxes (Bash, Python, CTF, user envs). */
export interface SandboxRunSettings {
  /** Sandbox backend (`bwrap`, `docker`); default `bwrap`. */
  readonly backend?: string;
  /** Sandbox image; default: the env's, else the backend's. */
  readonly image?: string;
  /** Only for envs that support it (Bash, Python). */
  readonly compat?: Compat;
  /**
   * Deterministic mode (`SandboxSpec.deterministic`); default: on for the registered (built-in) datasets,
   * off for task files. `true` requires an image with libfaketime (the clock); `false` turns it off.
   */
  readonly deterministic?: boolean;
}

/** Settings of the SQL environment. */
export interface SqlRunSettings {
  readonly engine?: SqlEngineName;
  readonly dbUrl?: string;
  readonly handicap?: boolean;
}

/**
 * Everything a run is set up from, as a user states it (the command line, a server request, a
 * worker's job): plain data, so it can be sent and stored. Settings that do not apply to the
 * dataset's environment are an error, never ignored.
 */
export interface RunConfig {
  /** Dataset id (`demo/bash`) or the path of a JSON/JSONL task file. */
  readonly dataset: string;
  /** Environment name, or the path of a module that defines one; needed for a task file. */
  readonly env?: string;
  readonly sandbox?: SandboxRunSettings;
  readonly sql?: SqlRunSettings;
  /** Time limit of one agent action, ms (default: each env's own). */
  readonly actionTimeoutMs?: number;
}

/** The command-line spelling of each setting, for messages. */
const FLAGS = {
  backend: '--backend',
  image: '--image',
  compat: '--compat',
  deterministic: '--deterministic',
  engine: '--engine',
  dbUrl: '--db-url',
  handicap: '--handicap',
} as const;

function given(settings: object | undefined): (keyof typeof FLAGS)[] {
  return (
    Object.entries(settings ?? {})
      // `--no-deterministic` is a setting given (false); a `false` elsewhere is a flag left out.
      .filter(([key, value]) => value !== undefined && (value !== false || key === 'deterministic'))
      .map(([key]) => key as keyof typeof FLAGS)
  );
}

/** Checks the values of a configuration that do not depend on the environment (before anything loads). */
export function checkRunConfigValues(config: RunConfig): void {
  const compat = config.sandbox?.compat;
  if (compat !== undefined && !COMPAT_MODES.includes(compat)) {
    throw new UsageError(`--compat must be one of ${COMPAT_MODES.join(', ')}, got "${String(compat)}"`);
  }
  const engine = config.sql?.engine;
  if (engine !== undefined && !isSqlEngineName(engine)) {
    throw new UsageError(`--engine: unknown engine "${String(engine)}" (known: sqlite, mysql, postgres)`);
  }
  const dbUrl = config.sql?.dbUrl;
  if (dbUrl !== undefined) {
    const server = engine ?? 'sqlite';
    if (server === 'sqlite') {
      throw new UsageError(
        '--db-url applies to the mysql and postgres engines: add --engine mysql or --engine postgres',
      );
    }
    let protocol: string;
    try {
      protocol = new URL(dbUrl).protocol;
    } catch {
      throw new UsageError(`--db-url: "${dbUrl}" is not a URL (e.g. ${server}://user:password@host:port)`);
    }
    if (!SQL_URL_SCHEMES[server].includes(protocol)) {
      throw new UsageError(
        `--db-url: the ${server} engine takes ${SQL_URL_SCHEMES[server].map((scheme) => `${scheme}//`).join(' or ')} URLs, not ${protocol}//`,
      );
    }
  }
  if (config.actionTimeoutMs !== undefined && !(config.actionTimeoutMs > 0)) {
    throw new UsageError(`the action time limit must be positive, got ${config.actionTimeoutMs}`);
  }
}

/** Refuses the settings of a configuration that do not apply to the environment it runs in. */
export function checkRunConfigApplies(config: RunConfig, envName: string, definition: EnvDefinition): void {
  if (definition.kind === 'sql') {
    const stray = given(config.sandbox);
    if (stray.length > 0) {
      throw new UsageError(
        `${stray.map((key) => FLAGS[key]).join(', ')}: ${envName} does not run in sandboxes (${stray.length > 1 ? 'these apply' : 'it applies'} to bash, python, ctf)`,
      );
    }
    return;
  }
  const stray = given(config.sql);
  if (stray.length > 0) {
    throw new UsageError(
      `${stray.map((key) => FLAGS[key]).join(', ')}: ${stray.length > 1 ? 'these apply' : 'it applies'} to the sql environment only, not ${envName}`,
    );
  }
  if (config.sandbox?.compat !== undefined && !definition.supportsCompat) {
    throw new UsageError(`--compat: the ${envName} environment has no upstream mode (bash and python have)`);
  }
}
