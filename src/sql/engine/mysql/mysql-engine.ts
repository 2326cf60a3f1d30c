import { randomBytes } from 'node:crypto';
import { createPool, type Pool, type PoolConnection, type RowDataPacket } from 'mysql2/promise';
import { currentOwner, isOwnerAlive } from '../../../core/host/owner.js';
import type { DumpDatabase, DumpModel } from '../../dump/dump-model.js';
import { MariadbServer, type MariadbServerOptions } from '../../server/mariadb-server.js';
import { objectName } from '../object-name.js';
import { ServerEngine } from '../server-engine.js';
import type { SqlEngine } from '../sql-engine.js';
import { SqlEngineError } from '../sql-engine-error.js';
import {
  databaseCollation,
  MYSQL_CONVERTER_VERSION,
  type MysqlFlavor,
  mysqlInserts,
  mysqlName,
  mysqlString,
  mysqlTablesDdl,
} from './mysql-schema.js';
import { MysqlSession, type MysqlSessionHost, type MysqlSlot } from './mysql-session.js';
import { isLocalEndpoint, type MysqlEndpoint, parseMysqlUrl } from './mysql-url.js';

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

/** The connection to the server, once started or reached. */
interface Backend {
  readonly pool: Pool;
  readonly endpoint: MysqlEndpoint;
  readonly flavor: MysqlFlavor;
  readonly version: string;
  /** A server the engine started (and stops at close). */
  readonly ownServer?: MariadbServer;
  readonly server?: MariadbServer;
  /**
   * A server the engine did not start (`url`, or `server` given by the caller): names of
   * per-session objects then carry the owner label, and templates are reused when present.
   */
  readonly shared: boolean;
}

let engines = 0;

/** Database names that are the server's own. */
const RESERVED = new Set(['mysql', 'information_schema', 'performance_schema', 'sys', 'test']);

/** Privileges of a session's account, on its own database only. */
const SESSION_PRIVILEGES =
  'SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, REFERENCES, CREATE TEMPORARY TABLES, CREATE VIEW, SHOW VIEW';

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Statements joined into multi-statement texts of at most about `maxBytes` each. */
function batches(statements: readonly string[], maxBytes: number): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const statement of statements) {
    if (current.length > 0 && size + statement.length > maxBytes) {
      out.push(current.join(';\n'));
      current = [];
      size = 0;
    }
    current.push(statement);
    size += statement.length + 2;
  }
  if (current.length > 0) out.push(current.join(';\n'));
  return out;
}

/** `db_name` as a GRANT pattern (`_` and `%` are wildcards there). */
function grantPattern(database: string): string {
  return mysqlName(database.replace(/([_%\\])/g, '\\$1'));
}

/**
 * The MySQL engine: MariaDB (or MySQL) through mysql2, either a server the engine starts for
 * itself (`MariadbServer`: private, Unix socket only, stopped at `close`) or one given by URL.
 *
 * **Loading.** Each dump database is created once per server as a *template* database, by running
 * the dump's own `CREATE TABLE`s (InnoDB forced; MySQL-8-only collations mapped on MariaDB) and its
 * rows, so tables are exactly upstream's: `utf8mb4_general_ci` text, whose comparisons ignore case
 * (and accents and trailing blanks) as upstream's did. On a URL server the templates are named after
 * the dump's SHA-256 and kept, so the next process reuses them.
 *
 * **Isolation.** Every session gets its own *copy* of the database and its own account, with rights
 * on that copy only. The first session on a database of a self-started server gets the dump's own
 * name (`concert_singer`; what `DATABASE()` and `SHOW DATABASES` show); concurrent sessions on the
 * same database get `concert_singer__2`, `__3`, … (MySQL has no per-session schema names; one
 * server per session would cost 0.3 s and 100 MB each). `USE concert_singer` is mapped to the
 * session's copy; a name qualified with the database (`concert_singer.singer`) works only in the
 * session that has the plain name. On a URL server (or a server given by the caller) every copy is
 * named `ic_<owner>_<engine>_<database>_<n>`, so that the user's databases are never touched, and
 * dropped at `close`; copies left by intercode processes that died are dropped at the next start
 * when the server is local.
 *
 * **Reset** (see `MysqlSession`): sessions run with autocommit off, as upstream's
 * `mysql.connector`; a reset is `COM_RESET_CONNECTION` (rolls back, drops temporary tables and
 * session state), plus, after DDL or a commit of writes, a rebuild from the template of what may
 * differ (objects the dump does not define are dropped; the dump's tables the session's changing
 * statements named, or that are missing, are recreated from the dump's DDL and filled by
 * `INSERT … SELECT`, with the tables whose foreign keys reference them), and after DML, a restore
 * of AUTO_INCREMENT counters (InnoDB does not roll them back). Measured on Spider: 0.2–0.4 ms after
 * a read-only episode, 0.5–1 ms after DML, 2–5 ms after DDL (p50); tables are in InnoDB's system
 * tablespace, so creating and dropping them writes no files.
 *
 * **Time limit**: `KILL QUERY` from an administrator connection when the limit passes (the statement
 * is rolled back, the transaction goes on), `KILL CONNECTION` if it still runs 2 s later (the
 * session is then rebuilt). **Rows**: streamed and counted; past the count bound a read-only query
 * is killed.
 *
 * **MariaDB vs MySQL 8** (upstream's server): sessions on MariaDB run without
 * `ONLY_FULL_GROUP_BY` (see {@link MARIADB_SQL_MODE}: MariaDB's version of the check is the older,
 * stricter one), so a few GROUP BY queries MySQL 8 refused run here; MariaDB has no
 * `utf8mb4_0900_*` collations before 11.4 (mapped), no `TABLE` statement, and stops recursive CTEs
 * after 1,000 iterations (`max_recursive_iterations`; MySQL: `cte_max_recursion_depth`, also 1,000).
 * Comparisons of text columns are case-insensitive on both (`utf8mb4_general_ci`, which also ignores
 * accents and trailing blanks); the connection collation is `utf8mb4_general_ci` too, so comparing
 * two literals (`'a' = 'A'`) is case-insensitive as upstream.
 */
export class MysqlEngine
  extends ServerEngine<Backend, PreparedDatabase, MysqlSlot, MysqlSession>
  implements SqlEngine
{
  protected readonly title = 'MySQL';
  readonly id = 'mysql' as const;
  readonly #options: MysqlEngineOptions;
  #users = 0;
  /** `<owner>_<n>`: names on a shared server carry it (n tells engines of one process apart). */
  readonly #tag = `${currentOwner()}_${++engines}`;
  /** Session copies and accounts this engine made on a shared server (dropped at close). */
  readonly #made = { databases: new Set<string>(), accounts: new Set<string>() };

  constructor(options: MysqlEngineOptions = {}) {
    super();
    if (options.url && options.server) {
      throw new SqlEngineError('SQL_ENGINE_FAILED', 'MysqlEngine takes a url or a server, not both');
    }
    this.#options = options;
  }

  /** An engine whose server is started (or reached) already: start-up errors surface here. */
  static start(options: MysqlEngineOptions = {}): Promise<MysqlEngine> {
    return new MysqlEngine(options).connected();
  }

  /** The server this engine started for itself, once started. */
  async server(): Promise<MariadbServer | undefined> {
    return (await this.backend()).server;
  }

  async prepare(dump: DumpModel): Promise<void> {
    this.assertUsable();
    for (const database of dump.databases) {
      const known = this.prepared.get(database.name.toLowerCase());
      if (known && known.sha256 !== dump.sha256) {
        throw new SqlEngineError(
          'SQL_ENGINE_FAILED',
          `database ${database.name} is defined by two different dumps`,
        );
      }
    }
    const backend = await this.backend();
    for (const database of dump.databases) {
      if (this.prepared.has(database.name.toLowerCase())) continue;
      const template = objectName(
        ['ic', `t${dump.sha256.slice(0, 8)}c${MYSQL_CONVERTER_VERSION}`, database.name.toLowerCase()],
        64,
      );
      const ddl = mysqlTablesDdl(database, backend.flavor);
      const collation = databaseCollation(database, backend.flavor);
      await this.buildTemplate(backend, database, template, ddl, collation);
      this.prepared.set(database.name.toLowerCase(), {
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

  protected async openSession(
    backend: Backend,
    prepared: PreparedDatabase,
    slot: MysqlSlot,
  ): Promise<MysqlSession> {
    if (slot.dirty) await this.rebuild(backend, slot);
    return MysqlSession.open(prepared.name, slot, this.host(backend));
  }

  protected async connect(): Promise<Backend> {
    const ownServer =
      this.#options.url || this.#options.server
        ? undefined
        : await MariadbServer.start(this.#options.serverOptions);
    const given = ownServer ?? this.#options.server;
    const endpoint: MysqlEndpoint = given ? given.adminConnection() : parseMysqlUrl(this.#options.url ?? '');
    const server = given;
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
    try {
      const [rows] = await pool.query<RowDataPacket[]>('SELECT VERSION() AS version');
      const version = String(rows[0]?.version ?? '');
      const flavor: MysqlFlavor = /mariadb/i.test(version) ? 'mariadb' : 'mysql';
      const backend: Backend = {
        pool,
        endpoint,
        flavor,
        version,
        ...(ownServer ? { ownServer } : {}),
        ...(server ? { server } : {}),
        shared: !ownServer,
      };
      server?.onExit((exit) => {
        const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
        this.failure ??= new SqlEngineError(
          'SQL_ENGINE_FAILED',
          `the MariaDB server exited (${how}): ${server.logTail() || 'no log'}`,
        );
      });
      if (backend.shared && isLocalEndpoint(endpoint)) await this.reapDeadOwners(backend);
      return backend;
    } catch (error) {
      await pool.end().catch(() => {});
      await ownServer?.stop();
      if (error instanceof SqlEngineError) throw error;
      throw new SqlEngineError('SQL_ENGINE_UNAVAILABLE', `cannot reach the MySQL server: ${message(error)}`, {
        cause: error,
      });
    }
  }

  /** The administrator connection's settings for loading: FK checks off, the dump's `sql_mode`, UTC. */
  private async adminConnection(backend: Backend): Promise<PoolConnection> {
    const connection = await backend.pool.getConnection();
    await connection.query(
      "SET SESSION foreign_key_checks = 0, unique_checks = 0, sql_mode = 'NO_AUTO_VALUE_ON_ZERO', time_zone = '+00:00', autocommit = 1",
    );
    if (backend.flavor === 'mysql') await connection.query('SET SESSION information_schema_stats_expiry = 0');
    return connection;
  }

  private async buildTemplate(
    backend: Backend,
    database: DumpDatabase,
    template: string,
    ddl: readonly string[],
    collation: string,
  ): Promise<void> {
    const connection = await this.adminConnection(backend);
    const lock = `intercode:${template}`;
    try {
      await connection.query('SELECT GET_LOCK(?, 600)', [lock]);
      {
        const [ready] = await connection.query<RowDataPacket[]>(
          'SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
          [template, '_intercode_ready'],
        );
        if (ready.length > 0) return;
      }
      await connection.query(
        `DROP DATABASE IF EXISTS ${mysqlName(template)}; CREATE DATABASE ${mysqlName(template)} CHARACTER SET utf8mb4 COLLATE ${collation}; USE ${mysqlName(template)}`,
      );
      const statements = database.tables.flatMap((table, index) => [ddl[index]!, ...mysqlInserts(table)]);
      try {
        for (const batch of batches(statements, 8_000_000)) await connection.query(batch);
      } catch {
        // Find the table that fails, one statement at a time (the batch stopped at it).
        await connection.query(
          `DROP DATABASE IF EXISTS ${mysqlName(template)}; CREATE DATABASE ${mysqlName(template)} CHARACTER SET utf8mb4 COLLATE ${collation}; USE ${mysqlName(template)}`,
        );
        for (const [index, table] of database.tables.entries()) {
          try {
            await connection.query(ddl[index]!);
            for (const insert of mysqlInserts(table)) await connection.query(insert);
          } catch (error) {
            throw new SqlEngineError(
              'SQL_ENGINE_FAILED',
              `${database.name}.${table.name} (dump line ${table.line}) does not load into ${backend.version}: ${message(error)}`,
              { cause: error },
            );
          }
        }
      }
      await connection.query('CREATE TABLE `_intercode_ready` (`version` int)');
    } finally {
      await connection.query('SELECT RELEASE_LOCK(?)', [lock]).catch(() => {});
      connection.release();
    }
  }

  /** A new session copy: database, account with rights on it only, built from the template. */
  protected async newSlot(backend: Backend, prepared: PreparedDatabase): Promise<MysqlSlot> {
    prepared.slots += 1;
    const index = prepared.slots;
    const lower = prepared.name.toLowerCase();
    const database = backend.shared
      ? objectName(['ic', this.#tag, lower, String(index)], 64)
      : index === 1 && !RESERVED.has(lower) && !lower.startsWith('ic_t')
        ? lower
        : objectName([lower, '', String(index)], 64);
    this.#users += 1;
    const user = backend.shared ? objectName(['ic', this.#tag, `u${this.#users}`], 32) : `ic_s${this.#users}`;
    const host = backend.endpoint.socketPath ? 'localhost' : '%';
    const password = randomBytes(18).toString('base64url');
    const account = `${mysqlString(user)}@${mysqlString(host)}`;
    const slot: MysqlSlot = {
      database,
      user,
      password,
      autoIncrements: new Map(),
      dirty: true,
      ...this.slotSource(prepared),
    };
    if (backend.shared) {
      this.#made.databases.add(database);
      this.#made.accounts.add(account);
    }
    const connection = await this.adminConnection(backend);
    try {
      await connection.query(
        `DROP USER IF EXISTS ${account}; CREATE USER ${account} IDENTIFIED BY ${mysqlString(password)}; GRANT ${SESSION_PRIVILEGES} ON ${grantPattern(database)}.* TO ${account}`,
      );
    } finally {
      connection.release();
    }
    await this.rebuild(backend, slot);
    return slot;
  }

  private slotSource(prepared: PreparedDatabase): Pick<MysqlSlot, 'template' | 'tables' | 'collation'> {
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
   * Makes a session copy pristine again, in one multi-statement round trip on an administrator
   * connection. Without `touched`: drops and recreates the whole database (the dump's DDL, then
   * `INSERT … SELECT` from the template). With `touched` (the names the session's changing
   * statements mentioned): drops the objects the dump does not define (tables, views the session
   * made) and rebuilds only the dump's tables that were named, that are missing, or that reference
   * a rebuilt table by a foreign key (cascades); the other tables are untouched by construction.
   * Then records the AUTO_INCREMENT counters.
   */
  private async rebuild(backend: Backend, slot: MysqlSlot, touched?: ReadonlySet<string>): Promise<void> {
    const target = mysqlName(slot.database);
    const connection = await this.adminConnection(backend);
    try {
      let redo = slot.tables;
      const parts: string[] = [];
      if (touched) {
        const [objects] = await connection.query<RowDataPacket[]>(
          'SELECT TABLE_NAME AS name, TABLE_TYPE AS type FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?',
          [slot.database],
        );
        const pristine = new Map(slot.tables.map((table) => [table.name.toLowerCase(), table]));
        const present = new Set(objects.map((row) => String(row.name).toLowerCase()));
        const names = new Set<string>();
        const add = (name: string) => {
          if (names.has(name) || !pristine.has(name)) return;
          names.add(name);
          for (const child of pristine.get(name)?.children ?? []) add(child);
        };
        for (const name of touched) add(name);
        for (const name of pristine.keys()) if (!present.has(name)) add(name);
        redo = slot.tables.filter((table) => names.has(table.name.toLowerCase()));
        parts.push(`CREATE DATABASE IF NOT EXISTS ${target} CHARACTER SET utf8mb4 COLLATE ${slot.collation}`);
        parts.push(`USE ${target}`);
        for (const row of objects) {
          const name = String(row.name);
          if (pristine.has(name.toLowerCase())) continue;
          const kind =
            String(row.type) === 'VIEW' ? 'VIEW' : String(row.type) === 'SEQUENCE' ? 'SEQUENCE' : 'TABLE';
          parts.push(`DROP ${kind} IF EXISTS ${mysqlName(name)}`);
        }
        if (redo.length > 0)
          parts.push(`DROP TABLE IF EXISTS ${redo.map((table) => mysqlName(table.name)).join(', ')}`);
      } else {
        parts.push(`DROP DATABASE IF EXISTS ${target}`);
        parts.push(`CREATE DATABASE ${target} CHARACTER SET utf8mb4 COLLATE ${slot.collation}`);
        parts.push(`USE ${target}`);
      }
      for (const table of redo) parts.push(table.ddl);
      for (const table of redo) {
        parts.push(
          `INSERT INTO ${mysqlName(table.name)} SELECT * FROM ${mysqlName(slot.template)}.${mysqlName(table.name)}`,
        );
      }
      // Statistics computed now, from the whole table: without this a copy keeps whatever InnoDB
      // estimated when it first opened the table (often while it was still empty), and the plans,
      // hence the order of tied rows, differ between copies of one database.
      if (redo.length > 0)
        parts.push(`ANALYZE TABLE ${redo.map((table) => mysqlName(table.name)).join(', ')}`);
      await connection.query(parts.join(';\n'));
      const [rows] = await connection.query<RowDataPacket[]>(
        'SELECT TABLE_NAME AS name, AUTO_INCREMENT AS next FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND AUTO_INCREMENT IS NOT NULL',
        [slot.database],
      );
      const counters = touched ? new Map(slot.autoIncrements) : new Map<string, string>();
      for (const table of redo) counters.delete(table.name.toLowerCase());
      const rebuilt = new Set(redo.map((table) => table.name.toLowerCase()));
      for (const row of rows) {
        const name = String(row.name).toLowerCase();
        if (rebuilt.has(name)) counters.set(name, String(row.next));
      }
      slot.autoIncrements = counters;
      slot.dirty = false;
    } catch (error) {
      throw (
        this.failure ??
        new SqlEngineError('SQL_ENGINE_FAILED', `rebuilding ${slot.database} failed: ${message(error)}`, {
          cause: error,
        })
      );
    } finally {
      await connection.query('USE mysql').catch(() => {});
      connection.release();
    }
  }

  /** What sessions need from the engine. */
  private host(backend: Backend): MysqlSessionHost {
    return {
      endpoint: backend.endpoint,
      flavor: backend.flavor,
      sqlMode: this.#options.sqlMode ?? (backend.flavor === 'mariadb' ? MARIADB_SQL_MODE : MYSQL8_SQL_MODE),
      countLimit: this.#options.countLimit ?? 100_000,
      killGraceMs: this.#options.killGraceMs ?? 2_000,
      failure: () => this.failure,
      health: () => this.health(backend),
      kill: async (threadId, what) => {
        await backend.pool
          .query(`KILL ${what === 'query' ? 'QUERY' : 'CONNECTION'} ${Number(threadId)}`)
          .catch(() => {});
      },
      rebuild: (slot, touched) => this.rebuild(backend, slot, touched),
      release: (session, slot) => {
        this.sessions.delete(session);
        this.prepared.get(session.database.toLowerCase())?.free.push(slot);
      },
    };
  }

  /** Undefined while the server answers; else the engine's failure (set once, for good). */

  /** Drops this engine's session copies and accounts (on a shared server). */
  protected async dropMade(backend: Backend): Promise<void> {
    for (const database of this.#made.databases) {
      await backend.pool.query(`DROP DATABASE IF EXISTS ${mysqlName(database)}`);
    }
    for (const account of this.#made.accounts) await backend.pool.query(`DROP USER IF EXISTS ${account}`);
  }

  /** Drops session copies and accounts left on a local shared server by intercode processes that died. */
  private async reapDeadOwners(backend: Backend): Promise<void> {
    const matches = (owner: string) => !isOwnerAlive(owner.slice(3));
    const pattern = /^(ic_\d+_\d+)_/;
    const [databases] = await backend.pool.query<RowDataPacket[]>('SHOW DATABASES');
    for (const row of databases) {
      const name = String(Object.values(row)[0]);
      const owner = pattern.exec(name)?.[1];
      if (owner && matches(owner)) await backend.pool.query(`DROP DATABASE IF EXISTS ${mysqlName(name)}`);
    }
    const [users] = await backend.pool
      .query<RowDataPacket[]>("SELECT User AS user, Host AS host FROM mysql.user WHERE User LIKE 'ic\\_%'")
      .catch(() => [[] as RowDataPacket[]] as const);
    for (const row of users) {
      const owner = pattern.exec(String(row.user))?.[1];
      if (owner && matches(owner)) {
        await backend.pool.query(
          `DROP USER IF EXISTS ${mysqlString(String(row.user))}@${mysqlString(String(row.host))}`,
        );
      }
    }
  }
}
