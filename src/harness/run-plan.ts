import type { Env } from '../core/env.js';
import { SandboxError } from '../core/errors.js';
import type { Registry } from '../core/registry.js';
import type { Dataset, Task } from '../core/task.js';
import type { DatasetSpec } from '../datasets/dataset-spec.js';
import { type DatasetLocation, locateDataset } from '../datasets/resolve-dataset.js';
import type { EnvDefinition, EnvFactory } from '../envs/env-definition.js';
import { createEnvRegistry } from '../envs/env-registry.js';
import { createProviderRegistry, type SandboxProviderFactory } from '../sandbox/provider-registry.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import { resolveEnvOption } from './resolve-env-option.js';
import { checkRunConfigApplies, checkRunConfigValues, type RunConfig } from './run-config.js';
import type { SkippedTask } from './run-summary.js';

/** Registries a run is planned against; each defaults to what intercode ships. */
export interface PlanRegistries {
  readonly envs?: Registry<EnvDefinition>;
  readonly datasets?: Registry<DatasetSpec>;
  readonly providers?: Registry<SandboxProviderFactory>;
}

/** What a run's summary says of its setup (the agent is added by whoever plays it). */
export interface RunSetupDescription {
  readonly dataset: string;
  readonly env: string;
  /** Only for environments that run in sandboxes. */
  readonly backend?: string;
  /** Only for the SQL environment. */
  readonly engine?: string;
  /** The SQL schema hint (`--handicap`), when given. */
  readonly handicap?: boolean;
  /** `--compat`, when given (Bash, Python). */
  readonly compat?: string;
}

/** A run opened: its dataset loaded, its sandbox backend checked, its environments ready to make. */
export interface OpenedRun {
  readonly dataset: Dataset;
  readonly definition: EnvDefinition;
  readonly description: RunSetupDescription;
  /** A new env of the run (one per concurrent episode). */
  createEnv(): Env;
  /** Releases what the run's envs share (a database server, the sandbox provider). Idempotent. */
  close(): Promise<void>;
}

/**
 * A run that has been checked but not started: the environment and every setting are known good,
 * nothing was downloaded or started. {@link loadDataset} then {@link open} start it. Every command
 * that plays episodes (run, play, serve, worker) sets up its runs through this one path.
 */
export class RunPlan {
  readonly config: RunConfig;
  /** The environment's registered name. */
  readonly envName: string;
  readonly definition: EnvDefinition;
  /** The sandbox backend's name, for sandbox environments. */
  readonly backend: string | undefined;
  readonly #location: DatasetLocation;
  readonly #provider: SandboxProviderFactory | undefined;

  private constructor(
    config: RunConfig,
    location: DatasetLocation,
    definition: EnvDefinition,
    backend: string | undefined,
    provider: SandboxProviderFactory | undefined,
  ) {
    this.config = config;
    this.#location = location;
    this.envName = location.env;
    this.definition = definition;
    this.backend = backend;
    this.#provider = provider;
  }

  /**
   * Checks a configuration against the environment it runs in: unknown values, settings that do
   * not apply, an image the backend cannot run. Throws a one-line error before any download or
   * server start; only an `--env` module is imported.
   */
  static async create(config: RunConfig, registries: PlanRegistries = {}): Promise<RunPlan> {
    checkRunConfigValues(config);
    const envs = registries.envs ?? createEnvRegistry();
    const envName = await resolveEnvOption(config.env, envs);
    const location = locateDataset(config.dataset, {
      env: envName,
      ...(registries.datasets ? { registry: registries.datasets } : {}),
    });
    const definition = envs.get(location.env);
    checkRunConfigApplies(config, location.env, definition);
    if (definition.kind === 'sql') return new RunPlan(config, location, definition, undefined, undefined);
    const backend = config.sandbox?.backend ?? 'bwrap';
    const factory = (registries.providers ?? createProviderRegistry()).get(backend);
    const image = config.sandbox?.image ?? definition.image;
    // Providers allocate nothing until their first sandbox: this one only checks the image name.
    if (image !== undefined) factory().checkImage(image);
    return new RunPlan(config, location, definition, backend, factory);
  }

  /** Loads the dataset (downloads and checks upstream files on first use). */
  loadDataset(): Promise<Dataset> {
    return this.#location.load();
  }

  /** The selected tasks the environment cannot run here, with why. */
  unrunnable(tasks: readonly Task[]): SkippedTask[] {
    return tasks.flatMap((task) => {
      const reason = this.definition.unrunnable?.(task);
      return reason === undefined ? [] : [{ taskId: task.id, reason }];
    });
  }

  /**
   * Opens the run on a loaded dataset: checks the sandbox backend (a backend that cannot run here
   * is one error now, not a failed episode each), then starts what the envs share (a database
   * engine and its server). Whatever fails, nothing is left running.
   */
  async open(dataset: Dataset): Promise<OpenedRun> {
    const definition = this.definition;
    const { actionTimeoutMs } = this.config;
    const timeout = actionTimeoutMs !== undefined ? { actionTimeoutMs } : {};
    if (definition.kind === 'sql') {
      const sql = this.config.sql ?? {};
      const factory = await definition.open({
        dataset,
        config: {
          kind: 'sql',
          ...(sql.engine ? { engine: sql.engine } : {}),
          ...(sql.dbUrl ? { dbUrl: sql.dbUrl } : {}),
          ...(sql.handicap ? { handicap: true } : {}),
        },
        ...timeout,
      });
      return openedRun(dataset, definition, factory, undefined, {
        dataset: dataset.id,
        env: this.envName,
        ...(factory.engine ? { engine: factory.engine } : {}),
        ...(sql.handicap ? { handicap: true } : {}),
      });
    }
    const provider = this.#provider!();
    let factory: EnvFactory;
    try {
      await checkProvider(provider, this.backend!);
      const sandbox = this.config.sandbox ?? {};
      const image = sandbox.image ?? definition.image;
      factory = await definition.open({
        dataset,
        config: {
          kind: 'sandbox',
          provider,
          ...(image ? { image } : {}),
          ...(sandbox.compat ? { compat: sandbox.compat } : {}),
        },
        ...timeout,
      });
    } catch (error) {
      await provider.close();
      throw error;
    }
    return openedRun(dataset, definition, factory, provider, {
      dataset: dataset.id,
      env: this.envName,
      backend: this.backend!,
      ...(this.config.sandbox?.compat ? { compat: this.config.sandbox.compat } : {}),
    });
  }
}

/** Without this, every episode would be recorded as failed and the run would "succeed". */
async function checkProvider(provider: SandboxProvider, backend: string): Promise<void> {
  const check = await provider.check();
  if (check.ok) return;
  const missing = check.items.filter((item) => !item.ok && !item.optional);
  throw new SandboxError(
    'SANDBOX_UNAVAILABLE',
    `the ${backend} sandbox cannot run here: ${missing
      .map((item) => `${item.name}: ${item.detail}${item.fix ? ` (fix: ${item.fix})` : ''}`)
      .join('; ')}`,
  );
}

function openedRun(
  dataset: Dataset,
  definition: EnvDefinition,
  factory: EnvFactory,
  provider: SandboxProvider | undefined,
  description: RunSetupDescription,
): OpenedRun {
  let closing: Promise<void> | undefined;
  return {
    dataset,
    definition,
    description,
    createEnv: () => factory.create(),
    close: () => {
      closing ??= (async () => {
        try {
          await factory.close();
        } finally {
          await provider?.close();
        }
      })();
      return closing;
    },
  };
}

/** Plans a run (see {@link RunPlan.create}). */
export function planRun(config: RunConfig, registries?: PlanRegistries): Promise<RunPlan> {
  return RunPlan.create(config, registries);
}
