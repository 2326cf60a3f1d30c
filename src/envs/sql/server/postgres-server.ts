import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { trackForExit } from '../../../sandbox/exit-cleanup.js';
import { SqlEngineError } from '../engine/sql-engine-error.js';
import { MAX_SOCKET_PATH } from './mariadb-server.js';
import { POSTGRES_INSTALL, postgresBinaries, setprivPath } from './server-binaries.js';
import { makePrivateDir, newServerDir, reapStaleServers, removeServerDir } from './server-dirs.js';
import { type ServerExit, ServerProcess } from './server-process.js';
import {
  runningAsRoot,
  type ServiceAccount,
  serverCommandPrefix,
  serviceAccount,
} from './service-account.js';
import { cachedTemplate, copyTemplate } from './template-cache.js';

const run = promisify(execFile);

/** Bump when the initialisation of the cached data directory changes. */
const TEMPLATE_FORMAT = 1;

/** The administrator account `initdb` creates. */
export const POSTGRES_SUPERUSER = 'postgres';

/** Options of a self-started PostgreSQL server. */
export interface PostgresServerOptions {
  /** Root of the user cache, where the initialised data directory is kept (default `cacheDir()`). */
  readonly cacheDir?: string;
  /** `shared_buffers`, default 32 MiB. */
  readonly sharedBuffersBytes?: number;
  /** Connections the server accepts, default 256 (each session holds one). */
  readonly maxConnections?: number;
  /** Time allowed to become ready, default 30 s. */
  readonly startTimeoutMs?: number;
}

/**
 * Server settings, chosen for a private, disposable server: no TCP (`listen_addresses=''`), a
 * Unix socket in a private folder (mode 0700), no durability (`fsync=off`, minimal WAL: the data
 * is thrown away), no autovacuum (sessions never commit), no JIT (predictable query times), no
 * prepared transactions, temporary files capped at 2 GB, UTC.
 */
function serverArgs(dir: string, options: PostgresServerOptions): string[] {
  const buffers = Math.max(1, Math.round((options.sharedBuffersBytes ?? 32 * 2 ** 20) / 2 ** 20));
  const settings: Record<string, string> = {
    listen_addresses: '',
    unix_socket_directories: join(dir, 'run'),
    unix_socket_permissions: '0700',
    max_connections: String(options.maxConnections ?? 256),
    shared_buffers: `${buffers}MB`,
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    wal_level: 'minimal',
    max_wal_senders: '0',
    max_prepared_transactions: '0',
    autovacuum: 'off',
    jit: 'off',
    huge_pages: 'off',
    // Segments in the data folder (removed with it) rather than /dev/shm, where a killed server leaves them.
    dynamic_shared_memory_type: 'mmap',
    temp_file_limit: '2GB',
    max_locks_per_transaction: '256',
    timezone: 'UTC',
    log_timezone: 'UTC',
    logging_collector: 'off',
    log_min_messages: 'warning',
  };
  const args = ['-D', join(dir, 'data')];
  for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);
  return args;
}

const SERVER_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TZ: 'UTC' };

/**
 * A PostgreSQL server intercode started for itself: from the distribution's binaries, on a copy of
 * a data directory initialised once per server version (`initdb`, UTF-8, locale `C.UTF-8`, trust
 * authentication: the only way in is the socket in a 0700 folder) and kept in the user cache, in a
 * private folder labelled with the owner process. PostgreSQL refuses to run as root, so when
 * intercode runs as root, `initdb` and the server run as the `postgres` account (else `nobody`)
 * through `setpriv`. The server dies with its owner (parent-death signal, exit handlers, and the
 * next start's reaper), and `stop()` ends it (SIGINT: fast shutdown; then SIGKILL) and removes its
 * folder.
 */
export class PostgresServer {
  readonly kind = 'postgres' as const;
  #stopping: Promise<void> | undefined;
  #startMs = 0;
  readonly #untrack: () => void;

  private constructor(
    private readonly process: ServerProcess,
    /** The server's private folder (data, socket). */
    readonly dir: string,
    /** `15.18`. */
    readonly version: string,
  ) {
    this.#untrack = trackForExit({
      closeSync: () => {
        process.killSync();
        rmSync(dir, { recursive: true, force: true });
      },
    });
  }

  /** Starts a server; throws `SQL_ENGINE_UNAVAILABLE` (missing binaries, no account) or `SQL_ENGINE_FAILED`. */
  static async start(options: PostgresServerOptions = {}): Promise<PostgresServer> {
    const started = performance.now();
    const binaries = postgresBinaries();
    setprivPath();
    reapStaleServers();
    const account = serviceAccount(['postgres', 'nobody']);
    if (runningAsRoot() && !account) {
      throw new SqlEngineError(
        'SQL_ENGINE_UNAVAILABLE',
        `PostgreSQL refuses to run as root and there is no postgres or nobody account: run ${POSTGRES_INSTALL} (it creates the postgres account)`,
      );
    }
    const template = await cachedTemplate({
      kind: 'postgres',
      key: `${binaries.version}-f${TEMPLATE_FORMAT}-${account?.name ?? userInfo().username}`,
      account,
      ...(options.cacheDir ? { cacheRoot: options.cacheDir } : {}),
      build: (dataDir) => initdb(binaries.initdb, dataDir, account),
    }).catch((error: unknown) => {
      throw new SqlEngineError('SQL_ENGINE_FAILED', `initdb failed: ${message(error)}`, { cause: error });
    });
    const dir = newServerDir('postgres', account);
    let process: ServerProcess | undefined;
    let server: PostgresServer | undefined;
    try {
      const socket = join(dir, 'run', '.s.PGSQL.5432');
      if (socket.length > MAX_SOCKET_PATH) {
        throw new SqlEngineError(
          'SQL_ENGINE_FAILED',
          `the server socket path is too long (${socket.length} > ${MAX_SOCKET_PATH}): set INTERCODE_RUNTIME_DIR to a shorter path`,
        );
      }
      await copyTemplate(template, join(dir, 'data'), account);
      makePrivateDir(join(dir, 'run'), account);
      process = await ServerProcess.spawn(
        [...serverCommandPrefix(account), binaries.postgres, ...serverArgs(dir, options)],
        SERVER_ENV,
      );
      server = new PostgresServer(process, dir, binaries.version);
      await server.waitReady(options.startTimeoutMs ?? 30_000);
      server.#startMs = performance.now() - started;
      return server;
    } catch (error) {
      process?.killSync();
      await process?.exited;
      if (server) server.#untrack();
      removeServerDir(dir);
      if (error instanceof SqlEngineError) throw error;
      throw new SqlEngineError(
        'SQL_ENGINE_FAILED',
        `the PostgreSQL server did not start: ${message(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  /** Wall time of `start()`, in milliseconds (template copy, server start, first connection). */
  get startMs(): number {
    return this.#startMs;
  }

  /** The folder of the server's Unix socket (pg's `host`). */
  get socketDir(): string {
    return join(this.dir, 'run');
  }

  get pid(): number {
    return this.process.pid;
  }

  get alive(): boolean {
    return this.process.alive;
  }

  /** Calls `listener` when the server process ends, whatever the reason. */
  onExit(listener: (exit: ServerExit) => void): () => void {
    return this.process.onExit(listener);
  }

  /** The last lines of the server's log (for error messages). */
  logTail(): string {
    return this.process.outputTail();
  }

  /** pg connection options of the server's administrator (`postgres` over the socket). */
  adminConnection(database = 'postgres'): { host: string; user: string; database: string } {
    return { host: this.socketDir, user: POSTGRES_SUPERUSER, database };
  }

  /** Stops the server (SIGINT: fast shutdown; SIGKILL after 3 s) and removes its folder. Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      await this.process.stop('SIGINT', 3_000);
      this.#untrack();
      removeServerDir(this.dir);
    })();
    return this.#stopping;
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let last: unknown;
    while (performance.now() < deadline) {
      if (!this.process.alive) {
        throw new SqlEngineError(
          'SQL_ENGINE_FAILED',
          `the PostgreSQL server exited during start-up (${describeExit(this.process.exit)}): ${this.logTail()}`,
        );
      }
      const client = new pg.Client({ ...this.adminConnection(), connectionTimeoutMillis: 2_000 });
      client.on('error', () => {});
      try {
        await client.connect();
        await client.end();
        return;
      } catch (error) {
        last = error;
        await client.end().catch(() => {});
        await sleep(20);
      }
    }
    throw new SqlEngineError(
      'SQL_ENGINE_FAILED',
      `the PostgreSQL server was not ready after ${timeoutMs} ms (${message(last)}): ${this.logTail()}`,
    );
  }
}

/** `initdb` under the server's account; locale `C.UTF-8` (Unicode case folding for citext), else `C`. */
async function initdb(
  initdbPath: string,
  dataDir: string,
  account: ServiceAccount | undefined,
): Promise<void> {
  const base = [
    ...serverCommandPrefix(account),
    initdbPath,
    '-D',
    dataDir,
    '--auth=trust',
    `--username=${POSTGRES_SUPERUSER}`,
    '--encoding=UTF8',
    '--no-sync',
  ];
  const [program, ...args] = base;
  try {
    await run(program!, [...args, '--locale=C.UTF-8'], { env: SERVER_ENV, timeout: 120_000, cwd: '/' });
  } catch {
    rmSync(dataDir, { recursive: true, force: true });
    await run(program!, [...args, '--locale=C'], {
      env: { ...SERVER_ENV, LANG: 'C', LC_ALL: 'C' },
      timeout: 120_000,
      cwd: '/',
    });
  }
}

function describeExit(exit: ServerExit | undefined): string {
  if (!exit) return 'running';
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

function message(error: unknown): string {
  if (
    error &&
    typeof error === 'object' &&
    'stderr' in error &&
    typeof error.stderr === 'string' &&
    error.stderr
  ) {
    return error.stderr.trim().split('\n').slice(-3).join(' | ');
  }
  return error instanceof Error ? error.message : String(error);
}
