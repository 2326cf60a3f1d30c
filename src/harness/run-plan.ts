import type { Env } from '../core/env.js';
import { SandboxError, UsageError } from '../core/errors.js';
import type { Registry } from '../core/registry.js';
import type { Dataset, Task } from '../core/task.js';
import type { DatasetSpec } from '../datasets/dataset-spec.js';
import { type DatasetLocation, locateDataset } from '../datasets/resolve-dataset.js';
import type { EnvDefinition, EnvFactory } from '../envs/env-definition.js';
import { createEnvRegistry } from '../envs/env-registry.js';
import type { SandboxProviderFactory } from '../sandbox/provider-registry.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import { resolveEnvOption } from './resolve-env-option.js';
import { checkRunConfigApplies, checkRunConfigValues, type RunConfig } from './run-config.js';
import type { SkippedTask } from './run-summary.js';
import { type NoticedSandbox, setupNotices } from './setup-notices.js';

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
  /** The sandbox image the run used (named, the dataset's own, or the backend's default). */
  readonly image?: string;
  /** Only for the SQL environment. */
  readonly engine?: string;
  /** The SQL schema hint (`--handicap`), when given. */
  readonly handicap?: boolean;
  /** `--compat`, when given (Bash, Python). */
  readonly compat?: string;
  /** Deterministic mode, for sandbox environments (see {@link RunPlan.deterministic}). */
  readonly deterministic?: boolean;
  /** In deterministic mode: whether the clock is pinned (the image has libfaketime). */
  readonly clockPinned?: boolean;
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
  /**
   * The image its sandboxes run, for sandbox environments: `--image`, else the environment's own,
   * else the dataset's own when it is built (`DatasetSpec.image`), else the backend's default.
   */
  readonly image: string | undefined;
  /**
   * Deterministic mode of a sandbox environment's run: `--deterministic`, else on for registered
   * datasets; with whether the image can pin the clock. Undefined for the SQL environment.
   */
  readonly deterministic: { readonly on: boolean; readonly clockPinned: boolean } | undefined;
  /** One-line notices on the setup, for the command to print before the run starts (`setup-notices.ts`). */
  readonly notices: readonly string[];
  readonly #location: DatasetLocation;
  readonly #provider: SandboxProviderFactory | undefined;

  private constructor(
    config: RunConfig,
    location: DatasetLocation,
    definition: EnvDefinition,
    backend: string | undefined,
    provider: SandboxProviderFactory | undefined,
    image?: string,
    deterministic?: { readonly on: boolean; readonly clockPinned: boolean },
    notices: readonly string[] = [],
  ) {
    this.image = image;
    this.deterministic = deterministic;
    this.notices = notices;
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
    if (definition.kind === 'sql')
      return new RunPlan(config, location, definition, undefined, undefined, undefined);
    const backend = config.sandbox?.backend ?? 'bwrap';
    // The backends load only for a run that uses one (a SQL run does not).
    const providers =
      registries.providers ?? (await import('../sandbox/provider-registry.js')).createProviderRegistry();
    const factory = providers.get(backend);
    const named = config.sandbox?.image ?? definition.image;
    // Providers allocate nothing until their first sandbox: this one only checks the image name,
    // whether a dataset's own image is built and whether it has the library that pins the clock.
    const provider = factory();
    if (named !== undefined) provider.checkImage(named);
    const own =
      named === undefined && location.image !== undefined
        ? await ownImage(location.image, provider)
        : undefined;
    const image = named ?? own?.image ?? provider.defaultImage;
    const deterministic = deterministicMode(config, location, provider, image);
    const notices = setupNotices(location, {
      image,
      imageNamed: config.sandbox?.image !== undefined,
      ...(own?.unbuilt ? { unbuilt: own.unbuilt } : {}),
    });
    return new RunPlan(config, location, definition, backend, factory, image, deterministic, notices);
  }

  /**
   * The run's config with its image named: what another machine plans the same run from (the
   * queue's workers), so that all of it runs on one image whatever each machine has built.
   */
  pinnedConfig(): RunConfig {
    if (this.image === undefined) return this.config;
    return { ...this.config, sandbox: { ...this.config.sandbox, image: this.image } };
  }

  /**
   * What the run's summary says of its setup, known before anything opens: the one description of
   * `open`, of a distributed run (whose envs open on the workers) and of what `--resume` compares.
   */
  describe(dataset = this.#location.id): RunSetupDescription {
    const { sql, sandbox } = this.config;
    return {
      dataset,
      env: this.envName,
      ...(this.backend !== undefined ? { backend: this.backend } : {}),
      ...(this.image !== undefined ? { image: this.image } : {}),
      ...(this.definition.kind === 'sql' ? { engine: sql?.engine ?? 'sqlite' } : {}),
      ...(sql?.handicap ? { handicap: true } : {}),
      ...(sandbox?.compat ? { compat: sandbox.compat } : {}),
      ...this.deterministicDescription(),
    };
  }

  /** The summary's fields of the deterministic mode (none for the SQL environment). */
  deterministicDescription(): Pick<RunSetupDescription, 'deterministic' | 'clockPinned'> {
    const mode = this.deterministic;
    if (!mode) return {};
    return { deterministic: mode.on, ...(mode.on ? { clockPinned: mode.clockPinned } : {}) };
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
   * engine and its server). Whatever fails, nothing is left running. `goldCache`: the sandbox envs'
   * gold cache on or off (default: on in deterministic mode; the bench measures without it).
   * `concurrency`: envs the run plays on at once, each for the whole run, which a SQL engine prepares
   * for ahead of need; without it envs come and go (a server's sessions), and SQLite keeps one process ready.
   */
  async open(
    dataset: Dataset,
    options: { readonly goldCache?: boolean; readonly concurrency?: number } = {},
  ): Promise<OpenedRun> {
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
        ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      });
      return openedRun(dataset, definition, factory, undefined, this.describe(dataset.id));
    }
    const provider = this.#provider!();
    let factory: EnvFactory;
    try {
      const { DETERMINISTIC_CLOCK_MS } = await import('../sandbox/deterministic-clock.js');
      await checkProvider(provider, this.backend!);
      const sandbox = this.config.sandbox ?? {};
      const image = this.image!;
      factory = await definition.open({
        dataset,
        config: {
          kind: 'sandbox',
          provider,
          image,
          ...(sandbox.compat ? { compat: sandbox.compat } : {}),
          ...(this.deterministic?.on ? { deterministic: { clockMs: DETERMINISTIC_CLOCK_MS } } : {}),
          ...(options.goldCache !== undefined ? { goldCache: options.goldCache } : {}),
        },
        ...timeout,
      });
    } catch (error) {
      await provider.close();
      throw error;
    }
    return openedRun(dataset, definition, factory, provider, this.describe(dataset.id));
  }
}

/**
 * Deterministic mode of a sandbox run: asked for (`--deterministic`), or on by default for a
 * registered dataset. Asked for on an image without libfaketime, it is a usage error; on by default
 * there, it pins the rest and warns that the clock runs.
 */
function deterministicMode(
  config: RunConfig,
  location: DatasetLocation,
  provider: SandboxProvider,
  name: string,
): { on: boolean; clockPinned: boolean } {
  const asked = config.sandbox?.deterministic;
  const on = asked ?? location.registered;
  if (!on) return { on, clockPinned: false };
  const clockPinned = (provider.clockLibrary?.(name) ?? null) !== null;
  if (!clockPinned) {
    const why = `image ${name} has no libfaketime (the Debian package libfaketime) to pin the clock with`;
    if (asked) throw new UsageError(`--deterministic: ${why}; without --deterministic the clock runs`);
    process.emitWarning(`deterministic mode without a pinned clock: ${why}`, 'IntercodeWarning');
  }
  return { on, clockPinned };
}

/**
 * A dataset's own image on `provider`: the run's when it is built, or when it is the backend's
 * default already (docker's `debian`: then whether it is built is for `create` to say); else what
 * the notice says, with the profile that builds it. Only such a run loads the image helpers.
 */
async function ownImage(
  own: string,
  provider: SandboxProvider,
): Promise<{ readonly image?: string; readonly unbuilt?: NoticedSandbox['unbuilt'] }> {
  const [{ imageIdentity }, { parseImageRef }] = await Promise.all([
    import('../sandbox/images/image-identity.js'),
    import('../sandbox/image-ref.js'),
  ]);
  if (imageIdentity(own) === imageIdentity(provider.defaultImage) || provider.imageBuilt?.(own))
    return { image: own };
  const ref = parseImageRef(own);
  return { unbuilt: { image: own, profile: ref?.kind === 'debian' ? ref.profile : own } };
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
