import { randomBytes } from 'node:crypto';
import { createPool, type Pool, type RowDataPacket } from 'mysql2/promise';
import type { DumpDatabase, DumpModel } from '../../dump/dump-model.js';
import type { ManagedServerOptions } from '../../server/managed-server.js';
import { MariadbServer, type MariadbServerOptions } from '../../server/mariadb-server.js';
import { ServerEngine, type ServerEngineOptions } from '../server-engine.js';
import type { Interruption } from '../server-session.js';
import type { SqlEngine } from '../sql-engine.js';
import { buildMysqlTemplate } from './build-mysql-template.js';
import { checkMysqlAccount } from './mysql-account-check.js';
import { type MysqlBackend, mysqlAdminConnection } from './mysql-backend.js';
import {
  databaseCollation,
  MYSQL_CONVERTER_VERSION,
  type MysqlFlavor,
  mysqlName,
  mysqlString,
  mysqlTablesDdl,
} from './mysql-schema.js';
import { MysqlSession } from './mysql-session.js';
import { readerGrant, sessionGrant } from './mysql-session-grant.js';
import type { MysqlSlot } from './mysql-slot.js';
import { isLocalEndpoint, type MysqlEndpoint, parseMysqlUrl } from './mysql-url.js';
import { rebuildMysqlCopy } from './rebuild-mysql-copy.js';

/**
 * MySQL 8's default `sql_mode`, which upstream's container ran with (its `ONLY_FULL_GROUP_BY`
 * is why some Spider gold queries failed there). Sessions on a MySQL server use it.
 */
export const MYSQL8_SQL_MODE =
  'ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';

/**
 * The `sql_mode` of sessions on MariaDB: MySQL 8's without `ONLY_FULL_GROUP_BY`. MariaDB implements
 * that check the old way (every selected column must be grouped or aggregated; MySQL 5.7+ also
 * accepts columns functionally dependent on the grouped key): with it, 113 of Spider's 1,034 gold
 * queries fail on MariaDB 10.11, against 19 on upstream's MySQL 8; without it, 6 fail, all among
 * upstream's 19 (the others are 13 GROUP BY queries MySQL 8 refused and MariaDB runs).
 */
export const MARIADB_SQL_MODE =
  'STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';

/** Options of the MySQL/MariaDB engine. */
export interface MysqlEngineOptions {
  /**
   * `mysql://user:password@host:port` (or `?socket=/path`): an administrator account on a running
   * MySQL or MariaDB server (it creates template databases, per-session databases and accounts).
   * Without it (and without `server`) the engine starts its own MariaDB server.
   */
  readonly url?: string;
  /** A server started by the caller, shared; `close()` leaves it running. */
  readonly server?: MariadbServer;
  /** Options of the server the engine starts for itself. */
  readonly serverOptions?: MariadbServerOptions;
  /** Rows counted in all before counting stops (`totalRowsCapped`), default 100,000. */
  readonly countLimit?: number;
  /**
   * `sql_mode` of the sessions. Default: MySQL 8's ({@link MYSQL8_SQL_MODE}) on MySQL, and the same
   * without `ONLY_FULL_GROUP_BY` on MariaDB ({@link MARIADB_SQL_MODE}), whose version of that check
   * is the older, stricter one.
   */
  readonly sqlMode?: string;
  /** Time between `KILL QUERY` and `KILL CONNECTION` when a query does not stop, default 2 s. */
  readonly killGraceMs?: number;
}

/** Options of the MySQL/MariaDB engine. */
export interface MysqlEngineOptions extends ServerEngineOptions<MariadbServer> {
  /**
   * `mysql://user:password@host:port` (or `?socket=/path`): an account on a running MySQL or
   * MariaDB server that can create databases and accounts and grant rights on them (checked at
   * start; see `mysql-account-check.ts`). Without it (and without `server`) the engine starts its
   * own MariaDB server.
   */
  readonly url?: string;
  /** Options of the server the engine starts for itself. */
  readonly serverOptions?: MariadbServerOptions;
  /**
   * `sql_mode` of the sessions. Default: MySQL 8's ({@link MYSQL8_SQL_MODE}) on MySQL, and the same
   * without `ONLY_FULL_GROUP_BY` on MariaDB ({@link MARIADB_SQL_MODE}), whose version of that check
   * is the older, stricter one.
   */
  readonly sqlMode?: string;
}

/** A database of a prepared dump, with its template on the server and its session copies. */
interface PreparedDatabase {
  readonly name: string;
  readonly sha256: string;
  readonly model: DumpDatabase;
  /** The template database (pristine, never touched by a session). */
  readonly template: string;
  readonly ddl: readonly string[];
  readonly collation: string;
  /** Copies no session uses, pristine or marked dirty. */
  readonly free: MysqlSlot[];
  slots: number;
}

/** The dump's tables as a copy rebuilds them, with the tables whose foreign keys reference each. */
function slotSource(prepared: PreparedDatabase): Pick<MysqlSlot, 'template' | 'tables' | 'collation'> {
  const tables = prepared.model.tables;
  const children = new Map<string, string[]>();
  for (const table of tables) {
    for (const key of table.foreignKeys) {
      const parent = key.refTable.toLowerCase();
      children.set(parent, [...(children.get(parent) ?? []), table.name.toLowerCase()]);
    }
  }
  return {
    template: prepared.template,
    tables: tables.map((table, index) => ({
      name: table.name,
      ddl: prepared.ddl[index]!,
      children: children.get(table.name.toLowerCase()) ?? [],
    })),
    collation: prepared.collation,
  };
}

/**
 * The MySQL engine: MariaDB (or MySQL) through mysql2, either a server the engine starts for
 * itself (`MariadbServer`: private, Unix socket only, stopped at `close`) or one given by URL (its
 * account checked first: `mysql-account-check.ts`). Each dump database is loaded once per server as
 * a template database with the dump's own `CREATE TABLE`s (InnoDB, `utf8mb4_general_ci` text, as
 * upstream); each session gets its own copy and its own account (`MysqlSession`), rebuilt from the
 * template where a reset needs it (`rebuild-mysql-copy.ts`). Sessions on MariaDB run without
 * `ONLY_FULL_GROUP_BY` ({@link MARIADB_SQL_MODE}). Copies, resets, time limits and the differences
 * from MySQL 8: `docs/architecture/sql-engines.md`.
 */
export class MysqlEngine
  extends ServerEngine<MysqlBackend, PreparedDatabase, MysqlSlot, MysqlSession, MysqlEngineOptions>
  implements SqlEngine
{
  protected readonly title = 'MySQL';
  protected readonly naming = {
    databaseLength: 64,
    accountLength: 32,
    reserved: new Set(['mysql', 'information_schema', 'performance_schema', 'sys', 'test']),
    ownPrefix: 'ic_t',
  };
  readonly id = 'mysql' as const;
  /** An engine whose server is started (or reached) already: start-up errors surface here. */
  static start(options: MysqlEngineOptions = {}): Promise<MysqlEngine> {
    return new MysqlEngine(options).connected();
  }

  protected readonly dataSettings = `c${MYSQL_CONVERTER_VERSION}`;

  protected startServer(extra: ManagedServerOptions): Promise<MariadbServer> {
    return MariadbServer.start({ ...this.options.serverOptions, ...extra });
  }

  protected onServer(server: MariadbServer): MysqlEngine {
    const { url: _url, preload: _preload, ...options } = this.options;
    return new MysqlEngine({ ...options, server });
  }

  protected endpointOf(server: MariadbServer | undefined, url: string): MysqlEndpoint {
    return server ? server.adminConnection() : parseMysqlUrl(url);
  }

  protected openPool(endpoint: MysqlEndpoint): Pool {
    const pool = createPool({
      ...endpoint,
      multipleStatements: true,
      connectionLimit: 6,
      charset: 'UTF8MB4_GENERAL_CI',
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: true,
      flags: ['-LOCAL_FILES'],
      connectTimeout: 10_000,
    });
    pool.on('connection', (connection) => {
      connection.on('error', () => {});
    });
    return pool;
  }

  protected async inspect(
    pool: Pool,
    endpoint: MysqlEndpoint,
    servers: Pick<MysqlBackend, 'ownServer' | 'server' | 'shared'>,
  ): Promise<MysqlBackend> {
    const [rows] = await pool.query<RowDataPacket[]>('SELECT VERSION() AS version');
    const version = String(rows[0]?.version ?? '');
    const flavor: MysqlFlavor = /mariadb/i.test(version) ? 'mariadb' : 'mysql';
    return { pool, endpoint, flavor, version, ...servers };
  }

  protected checkAccount(backend: MysqlBackend): Promise<void> {
    return checkMysqlAccount(backend);
  }

  protected isLocal(endpoint: MysqlEndpoint): boolean {
    return isLocalEndpoint(endpoint);
  }

  protected async load(
    backend: MysqlBackend,
    dump: DumpModel,
    databases: readonly DumpDatabase[],
  ): Promise<void> {
    for (const database of databases) {
      const template = this.templateName(dump, database, String(MYSQL_CONVERTER_VERSION));
      const ddl = mysqlTablesDdl(database, backend.flavor);
      const collation = databaseCollation(database, backend.flavor);
      await buildMysqlTemplate(backend, database, template, ddl, collation);
      this.prepared.add({
        name: database.name,
        sha256: dump.sha256,
        model: database,
        template,
        ddl,
        collation,
        free: [],
        slots: 0,
      });
    }
  }

  /** A new session copy: database, account with rights on it only, built from the template. */
  protected async makeSlot(
    backend: MysqlBackend,
    prepared: PreparedDatabase,
    database: string,
    user: string,
    readerUser: string,
  ): Promise<MysqlSlot> {
    const host = backend.endpoint.socketPath ? 'localhost' : '%';
    const password = randomBytes(18).toString('base64url');
    const reader = { user: readerUser, password: randomBytes(18).toString('base64url') };
    const account = `${mysqlString(user)}@${mysqlString(host)}`;
    const readerAccount = `${mysqlString(reader.user)}@${mysqlString(host)}`;
    const slot: MysqlSlot = {
      database,
      user,
      password,
      reader,
      autoIncrements: new Map(),
      dirty: true,
      ...slotSource(prepared),
    };
    this.made(backend, database, account);
    this.made(backend, database, readerAccount);
    const connection = await mysqlAdminConnection(backend);
    try {
      await connection.query(
        [
          `DROP USER IF EXISTS ${account}, ${readerAccount}`,
          `CREATE USER ${account} IDENTIFIED BY ${mysqlString(password)}`,
          `CREATE USER ${readerAccount} IDENTIFIED BY ${mysqlString(reader.password)}`,
          sessionGrant(database, account),
          readerGrant(database, readerAccount),
        ].join('; '),
      );
    } finally {
      connection.release();
    }
    await this.rebuild(backend, slot);
    return slot;
  }

  protected async openSession(
    backend: MysqlBackend,
    prepared: PreparedDatabase,
    slot: MysqlSlot,
  ): Promise<MysqlSession> {
    if (slot.dirty) await this.rebuild(backend, slot);
    return MysqlSession.open(prepared.name, slot, {
      ...this.sessionHost(backend),
      endpoint: backend.endpoint,
      flavor: backend.flavor,
      sqlMode: this.options.sqlMode ?? (backend.flavor === 'mariadb' ? MARIADB_SQL_MODE : MYSQL8_SQL_MODE),
      rebuild: (copy, touched) => this.rebuild(backend, copy, touched),
    });
  }

  protected async interrupt(backend: MysqlBackend, threadId: number, how: Interruption): Promise<void> {
    await backend.pool
      .query(`KILL ${how === 'cancel' ? 'QUERY' : 'CONNECTION'} ${Number(threadId)}`)
      .catch(() => {});
  }

  protected async listDatabases(backend: MysqlBackend): Promise<string[]> {
    const [rows] = await backend.pool.query<RowDataPacket[]>('SHOW DATABASES');
    return rows.map((row) => String(Object.values(row)[0]));
  }

  protected async listAccounts(backend: MysqlBackend): Promise<{ name: string; account: string }[]> {
    const [rows] = await backend.pool
      .query<RowDataPacket[]>("SELECT User AS user, Host AS host FROM mysql.user WHERE User LIKE 'ic\\_%'")
      .catch(() => [[] as RowDataPacket[]] as const);
    return rows.map((row) => ({
      name: String(row.user),
      account: `${mysqlString(String(row.user))}@${mysqlString(String(row.host))}`,
    }));
  }

  protected async dropDatabase(backend: MysqlBackend, database: string): Promise<void> {
    await backend.pool.query(`DROP DATABASE IF EXISTS ${mysqlName(database)}`);
  }

  protected async dropAccount(backend: MysqlBackend, account: string): Promise<void> {
    await backend.pool.query(`DROP USER IF EXISTS ${account}`);
  }

  private rebuild(backend: MysqlBackend, slot: MysqlSlot, touched?: ReadonlySet<string>): Promise<void> {
    return rebuildMysqlCopy(backend, () => this.failure, slot, touched);
  }
}
