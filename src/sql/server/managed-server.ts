import { renameSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cacheDir } from '../../core/host/cache-dir.js';
import { trackForExit } from '../../core/host/exit-cleanup.js';
import { errorReason, SqlEngineError } from '../engine/sql-engine-error.js';
import { cappedStoreCommand, storeSizeBytes } from './capped-store.js';
import { loadedDataDir, type Preload } from './loaded-data-cache.js';
import { setprivPath } from './server-binaries.js';
import { makePrivateDir, newServerDir, reapStaleServers, removeServerDir } from './server-dirs.js';
import { type ServerExit, ServerProcess } from './server-process.js';
import { type ServiceAccount, serverCommandPrefix, serviceAccount } from './service-account.js';
import { cachedTemplate, copyTemplate } from './template-cache.js';

/** Longest Unix socket path the kernel accepts (`sun_path`, less the final NUL). */
export const MAX_SOCKET_PATH = 107;

/** A failure as one line: the last lines a failed command printed to stderr, or the message. */
export function failureMessage(error: unknown): string {
  if (
    error &&
    typeof error === 'object' &&
    'stderr' in error &&
    typeof error.stderr === 'string' &&
    error.stderr
  ) {
    return error.stderr.trim().split('\n').slice(-3).join(' | ');
  }
  return errorReason(error);
}

/** How a server process ended (`signal SIGKILL`, `exit code 1`), or `running`. */
export function describeExit(exit: ServerExit | undefined): string {
  if (!exit) return 'running';
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

/** Options every self-started database server takes. */
export interface ManagedServerOptions {
  /** Root of the user cache, where the initialised data directory is kept (default `cacheDir()`). */
  readonly cacheDir?: string;
  /** Connections the server accepts, default 256 (each session holds one). */
  readonly maxConnections?: number;
  /** Time allowed to become ready, default 30 s. */
  readonly startTimeoutMs?: number;
  /**
   * Cap of the server's store (its data and temporary files), in bytes: default
   * `INTERCODE_DB_SIZE`, else 4 GiB. Writes past it fail with the server's "disk full" error.
   */
  readonly dataSizeBytes?: number;
  /**
   * Start on a copy of this data directory (one the server's account owns, made by a server of the
   * same kind, version and format, e.g. a cached loaded one: `loaded-data-cache.ts`) instead of the
   * initialised one.
   */
  readonly dataDir?: string;
  /**
   * Keep the data in a plain folder (no capped store in a namespace of its own), so that
   * `stopKeepingData` can take it once the server has shut down cleanly. Only for servers that load
   * trusted data (the dump), never for sessions.
   */
  readonly keepable?: boolean;
  /**
   * Data the server starts with, loaded once by a builder server and kept in the user cache
   * (`loaded-data-cache.ts`); ignored with `dataDir`.
   */
  readonly preload?: Preload;
}

/** The folder of a server's store (data, temporary files), the mount point of its capped tmpfs. */
export function storeDir(dir: string): string {
  return join(dir, 'store');
}

/** The data directory of a server in its folder `dir`. */
export function dataDir(dir: string): string {
  return join(storeDir(dir), 'data');
}

/** The folder of a server's temporary files in its folder `dir`. */
export function tempDir(dir: string): string {
  return join(storeDir(dir), 'tmp');
}

/**
 * What differs between the kinds of server intercode starts for itself: programs, the account it
 * runs as under root, the initialisation of its data directory (built once per version and kept in
 * the user cache), the layout of its private folder, and its command line.
 */
export interface ServerRecipe<T extends ManagedServer, Binaries> {
  /** `mariadb`, `postgres`: names the cached data directory and the server folders. */
  readonly kind: string;
  /** `MariaDB`, `PostgreSQL`: for messages. */
  readonly title: string;
  /** Finds the programs; throws `SQL_ENGINE_UNAVAILABLE` naming the package to install. */
  binaries(): Binaries;
  /** The server version, part of the cached data directory's key. */
  version(binaries: Binaries): string;
  /** System accounts the server may run as when intercode runs as root, preferred first. */
  readonly accounts: readonly string[];
  /** Refuses to start (throws) when the server cannot run as the account found. */
  checkAccount?(account: ServiceAccount | undefined): void;
  /** Bump when the initialisation of the cached data directory changes. */
  readonly templateFormat: number;
  /** The initialising program, for messages (`mariadb-install-db`, `initdb`). */
  readonly initName: string;
  /** Initialises a data directory at `dataDir` (run once per version; the result is cached). */
  init(binaries: Binaries, dataDir: string, account: ServiceAccount | undefined): Promise<void>;
  /** The Unix socket the server listens on, in its folder `dir`. */
  socketPath(dir: string): string;
  /** Private sub-folders of `dir` made next to the store (socket, the empty folder of `FILE`). */
  readonly subdirs: readonly string[];
  /**
   * The server's program and arguments (run through `setpriv`, see `serverCommandPrefix`), its data
   * in `dataDir(dir)`, its temporary files in `tempDir(dir)`; `sizeBytes` is the store's cap.
   */
  command(binaries: Binaries, dir: string, account: ServiceAccount | undefined, sizeBytes: number): string[];
  /**
   * When a full store must not reach the server's logs and control files (PostgreSQL stops when it
   * cannot write them): the folder of its databases in the data directory, which alone gets the cap,
   * and the size of a tmpfs of its own for the rest of the store.
   */
  readonly split?: { readonly folder: string; readonly restBytes: number };
  readonly env: Readonly<Record<string, string>>;
  create(process: ServerProcess, dir: string, binaries: Binaries): T;
}

/** How a database server of intercode's own is launched, once its binaries and template are ready. */
export interface LaunchOptions<T> {
  /** `MariaDB`, `PostgreSQL`: for messages. */
  readonly title: string;
  /** The server's private folder (made by `newServerDir`), removed again if the start fails. */
  readonly dir: string;
  /** The socket the server will listen on (checked against the kernel's length limit). */
  readonly socketPath: string;
  /** Fills the folder: copies the data template, makes the socket and temporary folders. */
  readonly prepare: () => Promise<void>;
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly create: (process: ServerProcess) => T;
  readonly startTimeoutMs: number;
  /** `performance.now()` when the caller's `start` began (for `startMs`). */
  readonly started: number;
}

/**
 * What MariaDB and PostgreSQL servers of intercode's own have in common: a process in a private
 * folder, tracked so that it dies with this process (exit handlers; the parent-death signal and the
 * next start's reaper do the rest), a start that waits until a client connects, and a `stop` that
 * ends the process and removes the folder.
 */
export abstract class ManagedServer {
  #stopping: Promise<void> | undefined;
  #stopped = false;
  #startMs = 0;
  readonly #untrack: () => void;

  protected constructor(
    protected readonly process: ServerProcess,
    /** The server's private folder (data, socket, temporary files). */
    readonly dir: string,
    readonly version: string,
  ) {
    this.#untrack = trackForExit({
      closeSync: () => {
        process.killSync();
        rmSync(dir, { recursive: true, force: true });
      },
    });
  }

  /** `MariaDB`, `PostgreSQL`: for messages. */
  abstract readonly title: string;
  /** The signal of a clean shutdown; SIGKILL follows after 3 s. */
  protected abstract readonly stopSignal: NodeJS.Signals;
  /**
   * The signal that ends a throw-away server at `stop()` without the work of a clean shutdown (its
   * data is discarded). SIGKILL follows after 3 s.
   */
  protected abstract readonly quickStopSignal: NodeJS.Signals;
  /** Makes the next shutdown leave a data directory another server can start from (MariaDB: a slow shutdown). */
  protected async beforeCleanStop(): Promise<void> {}
  /** One connection attempt as the administrator; throws while the server is not ready. */
  protected abstract probe(): Promise<void>;

  /**
   * Starts a server of the recipe's kind: its programs found, servers left by dead owners reaped,
   * the cached data directory built if needed and copied into a new private folder, the server
   * launched under its account. Throws `SQL_ENGINE_UNAVAILABLE` (missing programs, no account) or
   * `SQL_ENGINE_FAILED`.
   */
  protected static async boot<T extends ManagedServer, Binaries>(
    recipe: ServerRecipe<T, Binaries>,
    options: ManagedServerOptions,
  ): Promise<T> {
    const started = performance.now();
    const binaries = recipe.binaries();
    setprivPath();
    reapStaleServers();
    const account = serviceAccount(recipe.accounts);
    recipe.checkAccount?.(account);
    const serverKey = `${recipe.version(binaries)}-f${recipe.templateFormat}-${account?.name ?? userInfo().username}`;
    // The initialised data directory: needed unless a cached loaded one is found.
    const initial = async () =>
      options.dataDir ??
      (await cachedTemplate({
        kind: recipe.kind,
        key: serverKey,
        account,
        ...(options.cacheDir ? { cacheRoot: options.cacheDir } : {}),
        build: (dataDir) => recipe.init(binaries, dataDir, account),
      }).catch((error: unknown) => {
        throw new SqlEngineError('SQL_ENGINE_FAILED', `${recipe.initName} failed: ${failureMessage(error)}`, {
          cause: error,
        });
      }));
    const { preload, ...plain } = options;
    const loaded =
      preload && !options.dataDir
        ? await loadedDataDir({
            root: join(options.cacheDir ?? cacheDir(), 'sql', 'servers'),
            kind: recipe.kind,
            serverKey,
            account,
            initial,
            preload,
            startBuilder: async () =>
              ManagedServer.boot(recipe, { ...plain, dataDir: await initial(), keepable: true }),
          })
        : undefined;
    const template = loaded?.dataDir ?? (await initial());
    const sizeBytes = storeSizeBytes(options.dataSizeBytes);
    const dir = newServerDir(recipe.kind, account);
    const server = [...serverCommandPrefix(account), ...recipe.command(binaries, dir, account, sizeBytes)];
    const store = { store: storeDir(dir), template, sizeBytes, account };
    const capped = options.keepable
      ? undefined
      : cappedStoreCommand(recipe.split ? { ...store, split: recipe.split } : store, server);
    const launched = ManagedServer.launch({
      title: recipe.title,
      dir,
      socketPath: recipe.socketPath(dir),
      prepare: async () => {
        makePrivateDir(storeDir(dir), account);
        // Without namespaces (not root, user namespaces off) the store is a plain folder, uncapped.
        if (!capped) {
          await copyTemplate(template, dataDir(dir), account);
          makePrivateDir(tempDir(dir), account);
        }
        for (const sub of recipe.subdirs) makePrivateDir(join(dir, sub), account);
      },
      command: capped ?? server,
      env: recipe.env,
      create: (process) => recipe.create(process, dir, binaries),
      startTimeoutMs: options.startTimeoutMs ?? 30_000,
      started,
    });
    // An uncached loaded folder is the lower layer of the server's overlay: it goes when the server does.
    const running = await launched.catch((error: unknown) => {
      loaded?.cleanup();
      throw error;
    });
    if (loaded) running.onExit(() => loaded.cleanup());
    return running;
  }

  /** Spawns the server, waits until it answers, and cleans everything up when it does not. */
  protected static async launch<T extends ManagedServer>(options: LaunchOptions<T>): Promise<T> {
    let process: ServerProcess | undefined;
    let server: T | undefined;
    try {
      if (options.socketPath.length > MAX_SOCKET_PATH) {
        throw new SqlEngineError(
          'SQL_ENGINE_FAILED',
          `the server socket path is too long (${options.socketPath.length} > ${MAX_SOCKET_PATH}): set INTERCODE_RUNTIME_DIR to a shorter path`,
        );
      }
      await options.prepare();
      process = await ServerProcess.spawn(options.command, options.env);
      server = options.create(process);
      await server.#waitReady(options.startTimeoutMs);
      server.#startMs = performance.now() - options.started;
      return server;
    } catch (error) {
      process?.killSync();
      await process?.exited;
      if (server) server.#untrack();
      removeServerDir(options.dir);
      if (error instanceof SqlEngineError) throw error;
      throw new SqlEngineError(
        'SQL_ENGINE_FAILED',
        `the ${options.title} server did not start: ${failureMessage(error)}`,
        { cause: error },
      );
    }
  }

  async #waitReady(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let last: unknown;
    while (performance.now() < deadline) {
      if (!this.process.alive) {
        throw new SqlEngineError(
          'SQL_ENGINE_FAILED',
          `the ${this.title} server exited during start-up (${describeExit(this.process.exit)}): ${this.logTail()}`,
        );
      }
      try {
        await this.probe();
        return;
      } catch (error) {
        last = error;
        await sleep(20);
      }
    }
    throw new SqlEngineError(
      'SQL_ENGINE_FAILED',
      `the ${this.title} server was not ready after ${timeoutMs} ms (${failureMessage(last)}): ${this.logTail()}`,
    );
  }

  /** Wall time of `start()`, in milliseconds (template copy, server start, first connection). */
  get startMs(): number {
    return this.#startMs;
  }

  get pid(): number {
    return this.process.pid;
  }

  get alive(): boolean {
    return this.process.alive;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Calls `listener` when the server process ends, whatever the reason. */
  onExit(listener: (exit: ServerExit) => void): () => void {
    return this.process.onExit(listener);
  }

  /** The last lines of the server's log (for error messages). */
  logTail(): string {
    return this.process.outputTail();
  }

  /**
   * Stops the server without a clean shutdown (its data is thrown away: MariaDB is killed,
   * PostgreSQL gets an immediate shutdown, which still frees its shared memory), SIGKILL after 3 s,
   * and removes its folder. Idempotent.
   */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      await this.process.stop(this.quickStopSignal, 3_000);
      this.#release();
    })();
    return this.#stopping;
  }

  /**
   * Shuts a `keepable` server down cleanly (up to `graceMs`), moves its data directory to `target`
   * (a path that does not exist yet, on the same file system as the server folders) and removes the
   * rest of its folder. Throws `SQL_ENGINE_FAILED` when the shutdown was not clean (the server is
   * then gone and its folder removed).
   */
  stopKeepingData(target: string, graceMs = 60_000): Promise<void> {
    if (this.#stopping) throw new SqlEngineError('SQL_ENGINE_FAILED', `the ${this.title} server is stopping`);
    const stopping = (async () => {
      try {
        await this.beforeCleanStop();
        const exit = await this.process.stop(this.stopSignal, graceMs);
        if (exit.code !== 0) {
          throw new SqlEngineError(
            'SQL_ENGINE_FAILED',
            `the ${this.title} server did not shut down cleanly (${describeExit(exit)}): ${this.logTail()}`,
          );
        }
        renameSync(dataDir(this.dir), target);
      } finally {
        this.#release();
      }
    })();
    this.#stopping = stopping.catch(() => {});
    return stopping;
  }

  #release(): void {
    this.#stopped = true;
    this.#untrack();
    removeServerDir(this.dir);
  }
}
