import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { createConnection } from 'mysql2/promise';
import { dataDir, ManagedServer, type ManagedServerOptions, tempDir } from './managed-server.js';
import { type MariadbBinaries, mariadbBinaries } from './server-binaries.js';
import { makePrivateDir } from './server-dirs.js';
import type { ServerProcess } from './server-process.js';
import { runningAsRoot, type ServiceAccount } from './service-account.js';

const run = promisify(execFile);

/** Bump when the initialisation of the cached data directory changes. */
const TEMPLATE_FORMAT = 1;

/** Options of a self-started MariaDB server. */
export interface MariadbServerOptions extends ManagedServerOptions {
  /** InnoDB buffer pool, default 64 MiB. */
  readonly bufferPoolBytes?: number;
}

/**
 * Server settings, chosen for a private, disposable server:
 * - reachable only through a Unix socket in a 0700 folder (`--skip-networking`);
 * - no file access from SQL: `--local-infile=0`, `--secure-file-priv` on an empty private folder,
 *   `--skip-symbolic-links` (no `DATA DIRECTORY` tricks);
 * - MySQL's semantics as upstream ran them: `--lower-case-table-names=1` (upstream's container
 *   flag: table and database names are case-insensitive), utf8mb4 with `utf8mb4_general_ci`;
 * - no durability (the data is thrown away): no binary log, no doublewrite, log flushed once a
 *   second, and every InnoDB table in the system tablespace (`--innodb-file-per-table=0`), which
 *   makes CREATE/DROP TABLE cheap (no file per table): the MariaDB reset rebuilds tables.
 */
function serverArgs(dir: string, options: MariadbServerOptions, sizeBytes: number): string[] {
  const pool = Math.max(8, Math.round((options.bufferPoolBytes ?? 64 * 2 ** 20) / 2 ** 20));
  const mib = Math.floor(sizeBytes / 2 ** 20);
  return [
    '--no-defaults',
    `--datadir=${dataDir(dir)}`,
    `--socket=${join(dir, 'run', 'mysqld.sock')}`,
    `--pid-file=${join(dir, 'run', 'mysqld.pid')}`,
    `--tmpdir=${tempDir(dir)}`,
    '--skip-networking',
    '--local-infile=0',
    `--secure-file-priv=${join(dir, 'files')}`,
    '--skip-symbolic-links',
    '--lower-case-table-names=1',
    '--character-set-server=utf8mb4',
    '--collation-server=utf8mb4_general_ci',
    '--default-time-zone=+00:00',
    '--skip-log-bin',
    '--skip-name-resolve',
    '--performance-schema=0',
    `--innodb-buffer-pool-size=${pool}M`,
    '--innodb-log-file-size=8M',
    '--innodb-flush-log-at-trx-commit=0',
    '--innodb-doublewrite=0',
    '--innodb-file-per-table=0',
    // The system tablespace grows 4 MiB at a time, not 64: a cached loaded data directory stays
    // small, and so does the copy of it a server's first write makes (`capped-store.ts`).
    '--innodb-autoextend-increment=4',
    // Within the store's cap (a tmpfs of that size): InnoDB's tablespaces stop growing first, so a
    // session that writes too much gets "The table … is full" (and the space is reused after the
    // reset's rollback); internal temporary tables on disk get a cap of their own.
    `--innodb-data-file-path=ibdata1:12M:autoextend:max:${Math.max(32, Math.floor(mib * 0.6))}M`,
    `--innodb-temp-data-file-path=ibtmp1:12M:autoextend:max:${Math.max(16, Math.floor(mib * 0.15))}M`,
    `--tmp-disk-table-size=${Math.max(16, Math.floor(mib * 0.15))}M`,
    `--maximum-tmp-disk-table-size=${Math.max(16, Math.floor(mib * 0.15))}M`,
    // Tables a session creates are InnoDB (in the capped tablespace): no MEMORY tables in the
    // server's own memory, no MyISAM or Aria files outside InnoDB's cap. A session's memory is
    // capped, and the session variables that size memory cannot be raised past these bounds.
    '--enforce-storage-engine=InnoDB',
    `--max-session-mem-used=${SESSION_MEMORY}`,
    `--maximum-max-session-mem-used=${SESSION_MEMORY}`,
    '--maximum-max-heap-table-size=64M',
    '--maximum-tmp-memory-table-size=64M',
    '--innodb-fast-shutdown=3',
    // Statistics that change in the background after a reset's rebuild would change query plans,
    // and with them which of several tied rows a `LIMIT` keeps, between the gold and the agent.
    '--innodb-stats-auto-recalc=0',
    // Every rebuilt table is analysed right away (see the MySQL engine's rebuild); reading all of
    // its pages makes the statistics exact, so they, and the plans, are the same in every copy.
    '--innodb-stats-persistent-sample-pages=1000000',
    `--max-connections=${options.maxConnections ?? 256}`,
    '--max-allowed-packet=64M',
    '--wait-timeout=31536000',
    '--interactive-timeout=31536000',
  ];
}

/** Memory one session may allocate (`max_session_mem_used`): far above what any task's query needs. */
const SESSION_MEMORY = '1G';

const SERVER_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', TZ: 'UTC' };

/**
 * A MariaDB server intercode started for itself: from the distribution's binaries, on a copy of an
 * initialised data directory (built once per server version with `mariadb-install-db` and kept in
 * the user cache), in a private folder labelled with the owner process (`<runtime>-db/<owner>/…`),
 * reachable only through its Unix socket, as root with the `root` account (no password; the socket's
 * folder is private). It runs under the `mysql` account when intercode runs as root, dies with its
 * owner (parent-death signal; exit handlers kill it too; the next start reaps what a crash left),
 * and `stop()` ends it (SIGTERM, then SIGKILL) and removes its folder.
 */
export class MariadbServer extends ManagedServer {
  readonly kind = 'mariadb' as const;
  readonly title = 'MariaDB';
  protected readonly stopSignal = 'SIGTERM';
  protected readonly quickStopSignal = 'SIGKILL';

  /** `version` is like `10.11.19-MariaDB-0+deb12u1`. */
  private constructor(process: ServerProcess, dir: string, version: string) {
    super(process, dir, version);
  }

  /** Starts a server; throws `SQL_ENGINE_UNAVAILABLE` (missing binaries) or `SQL_ENGINE_FAILED`. */
  static start(options: MariadbServerOptions = {}): Promise<MariadbServer> {
    return ManagedServer.boot<MariadbServer, MariadbBinaries>(
      {
        kind: 'mariadb',
        title: 'MariaDB',
        binaries: mariadbBinaries,
        version: (binaries) => binaries.version,
        accounts: ['mysql', 'nobody'],
        templateFormat: TEMPLATE_FORMAT,
        initName: 'mariadb-install-db',
        init: (binaries, dataDir, account) =>
          installDb(binaries.installDb, dataDir, account, runningAsRoot() && !account),
        socketPath: (dir) => join(dir, 'run', 'mysqld.sock'),
        subdirs: ['run', 'files'],
        command: (binaries, dir, account, sizeBytes) => [
          binaries.mariadbd,
          ...serverArgs(dir, options, sizeBytes),
          ...(runningAsRoot() && !account ? ['--user=root'] : []),
        ],
        env: SERVER_ENV,
        create: (process, dir, binaries) => new MariadbServer(process, dir, binaries.version),
      },
      options,
    );
  }

  /** The Unix socket clients connect to. */
  get socketPath(): string {
    return join(this.dir, 'run', 'mysqld.sock');
  }

  /** mysql2 connection options of the server's administrator (`root` over the socket). */
  adminConnection(): { socketPath: string; user: string } {
    return { socketPath: this.socketPath, user: 'root' };
  }

  protected async probe(): Promise<void> {
    // A client connection costs mysql2 some milliseconds of CPU to make (the starting server's, on a
    // small machine): none before the server has made its socket.
    if (!existsSync(this.socketPath)) throw new Error(`no socket ${this.socketPath} yet`);
    const connection = await createConnection({ ...this.adminConnection(), connectTimeout: 2_000 });
    await connection.end();
  }

  /** `--innodb-fast-shutdown=3` skips flushing the redo log: a clean copy needs the normal shutdown. */
  protected override async beforeCleanStop(): Promise<void> {
    const connection = await createConnection({ ...this.adminConnection(), connectTimeout: 2_000 });
    try {
      await connection.query('SET GLOBAL innodb_fast_shutdown = 1');
    } finally {
      await connection.end();
    }
  }
}

/**
 * `mariadb-install-db` on `dataDir`, with a temporary folder of its own beside it: the bootstrap
 * server, like every MariaDB server starting, deletes the `#sql*` files it finds in its temporary
 * folder, so two initialisations sharing `/tmp` (two starts on an empty cache) broke each other.
 */
async function installDb(
  installDb: string,
  dataDir: string,
  account: ServiceAccount | undefined,
  asRoot: boolean,
): Promise<void> {
  const user = account ? [`--user=${account.name}`] : asRoot ? ['--user=root'] : [];
  const tmp = makePrivateDir(join(dirname(dataDir), 'init-tmp'), account);
  await run(
    installDb,
    [
      '--no-defaults',
      `--datadir=${dataDir}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--skip-name-resolve',
      '--innodb-log-file-size=8M',
      '--lower-case-table-names=1',
      `--tmpdir=${tmp}`,
      ...user,
    ],
    { env: SERVER_ENV, timeout: 120_000, maxBuffer: 16 * 2 ** 20 },
  );
}
