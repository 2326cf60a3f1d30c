import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { SqlEngineError } from '../engine/sql-engine-error.js';
import { dataDir, ManagedServer, type ManagedServerOptions } from './managed-server.js';
import { findProgram, POSTGRES_INSTALL, type PostgresBinaries, postgresBinaries } from './server-binaries.js';
import type { ServerProcess } from './server-process.js';
import { runningAsRoot, type ServiceAccount, serverCommandPrefix } from './service-account.js';

const run = promisify(execFile);

/** Bump when the initialisation of the cached data directory changes. */
const TEMPLATE_FORMAT = 1;

/** The administrator account `initdb` creates. */
export const POSTGRES_SUPERUSER = 'postgres';

/** Options of a self-started PostgreSQL server. */
export interface PostgresServerOptions extends ManagedServerOptions {
  /** `shared_buffers`, default 32 MiB. */
  readonly sharedBuffersBytes?: number;
}

/**
 * Server settings, chosen for a private, disposable server: no TCP (`listen_addresses=''`), a
 * Unix socket in a private folder (mode 0700), no durability (`fsync=off`, minimal WAL: the data
 * is thrown away), no autovacuum (sessions never commit), no JIT (predictable query times), no
 * prepared transactions, temporary files capped at 2 GB, UTC.
 */
function serverArgs(dir: string, options: PostgresServerOptions, sizeBytes: number): string[] {
  const mib = Math.floor(sizeBytes / 2 ** 20);
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
    // Within the store's cap: the databases (`base/`, temporary files included) have a tmpfs of the
    // cap's size, where one session's temporary files stay well below it; the rest (WAL, control
    // files) a tmpfs of its own (REST_BYTES), so a full store is a statement's error ("could not
    // extend file"), never a failed WAL or checkpoint write, which would stop the server. The WAL
    // is recycled at each checkpoint, which max_wal_size triggers.
    temp_file_limit: `${Math.max(16, Math.min(2048, Math.floor(mib * 0.25)))}MB`,
    max_wal_size: `${WAL_MIB}MB`,
    min_wal_size: '32MB',
    // Segments before a checkpoint are removed rather than kept for reuse: a cached loaded data
    // directory holds one segment, not min_wal_size's worth.
    wal_recycle: 'off',
    checkpoint_completion_target: '0.5',
    max_locks_per_transaction: '256',
    timezone: 'UTC',
    log_timezone: 'UTC',
    logging_collector: 'off',
    log_min_messages: 'warning',
  };
  const args = ['-D', dataDir(dir)];
  for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);
  return args;
}

/**
 * Address space of each server process (`RLIMIT_AS`, inherited by every backend): a session may
 * raise `work_mem` or `hash_mem_multiplier` (no privilege bounds them), so without it one sort could
 * take the host's memory; with it the statement fails with "out of memory" and the server lives on.
 */
const BACKEND_MEMORY_BYTES = 2 * 2 ** 30;

/** `prlimit --as=… --` (util-linux) before the server's program, when prlimit is installed. */
function backendMemoryLimit(): string[] {
  const prlimit = findProgram(['/usr/bin/prlimit', 'prlimit']);
  return prlimit ? [prlimit, `--as=${BACKEND_MEMORY_BYTES}`, '--'] : [];
}

/** `max_wal_size`, in MiB: a checkpoint (cheap without fsync) recycles the log past it. */
const WAL_MIB = 64;
/**
 * The tmpfs of everything but the databases (`base/`, which has the cap): the write-ahead log,
 * with room for several times `max_wal_size`, the shared catalogues and control files.
 */
const REST_BYTES = 6 * WAL_MIB * 2 ** 20;

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
export class PostgresServer extends ManagedServer {
  readonly kind = 'postgres' as const;
  readonly title = 'PostgreSQL';
  /** A fast shutdown (a checkpoint: the data directory is clean). */
  protected readonly stopSignal = 'SIGINT';
  /** An immediate shutdown: the backends quit, shared memory is freed, no checkpoint. */
  protected readonly quickStopSignal = 'SIGQUIT';

  /** `version` is like `15.18`. */
  private constructor(process: ServerProcess, dir: string, version: string) {
    super(process, dir, version);
  }

  /** Starts a server; throws `SQL_ENGINE_UNAVAILABLE` (missing binaries, no account) or `SQL_ENGINE_FAILED`. */
  static start(options: PostgresServerOptions = {}): Promise<PostgresServer> {
    return ManagedServer.boot<PostgresServer, PostgresBinaries>(
      {
        kind: 'postgres',
        title: 'PostgreSQL',
        binaries: postgresBinaries,
        version: (binaries) => binaries.version,
        accounts: ['postgres', 'nobody'],
        checkAccount: (account) => {
          if (runningAsRoot() && !account) {
            throw new SqlEngineError(
              'SQL_ENGINE_UNAVAILABLE',
              `PostgreSQL refuses to run as root and there is no postgres or nobody account: run ${POSTGRES_INSTALL} (it creates the postgres account)`,
            );
          }
        },
        templateFormat: TEMPLATE_FORMAT,
        initName: 'initdb',
        init: (binaries, dataDir, account) => initdb(binaries.initdb, dataDir, account),
        socketPath: (dir) => join(dir, 'run', '.s.PGSQL.5432'),
        subdirs: ['run'],
        split: { folder: 'base', restBytes: REST_BYTES },
        command: (binaries, dir, _account, sizeBytes) => [
          ...backendMemoryLimit(),
          binaries.postgres,
          ...serverArgs(dir, options, sizeBytes),
        ],
        env: SERVER_ENV,
        create: (process, dir, binaries) => new PostgresServer(process, dir, binaries.version),
      },
      options,
    );
  }

  /** The folder of the server's Unix socket (pg's `host`). */
  get socketDir(): string {
    return join(this.dir, 'run');
  }

  /** pg connection options of the server's administrator (`postgres` over the socket). */
  adminConnection(database = 'postgres'): { host: string; user: string; database: string } {
    return { host: this.socketDir, user: POSTGRES_SUPERUSER, database };
  }

  protected async probe(): Promise<void> {
    const client = new pg.Client({ ...this.adminConnection(), connectionTimeoutMillis: 2_000 });
    client.on('error', () => {});
    try {
      await client.connect();
    } finally {
      await client.end().catch(() => {});
    }
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
