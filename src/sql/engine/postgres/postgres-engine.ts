import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DumpDatabase, DumpModel } from '../../dump/dump-model.js';
import type { ManagedServerOptions } from '../../server/managed-server.js';
import { PostgresServer, type PostgresServerOptions } from '../../server/postgres-server.js';
import { ServerEngine, type ServerEngineOptions } from '../server-engine.js';
import type { Interruption } from '../server-session.js';
import type { SqlEngine } from '../sql-engine.js';
import { errorReason, SqlEngineError } from '../sql-engine-error.js';
import { buildPostgresTemplate } from './build-postgres-template.js';
import { checkPostgresAccount } from './postgres-account-check.js';
import { AGENT_ROLE, dropForce, type PostgresBackend } from './postgres-backend.js';
import { type PostgresPristineSchema, postgresPristineSchema } from './postgres-catalogue.js';
import { POSTGRES_CONVERTER_VERSION, type PostgresTextMode, pgName, pgString } from './postgres-schema.js';
import { PostgresSession, type PostgresSlot } from './postgres-session.js';
import { isLocalPostgres, type PostgresEndpoint, parsePostgresUrl } from './postgres-url.js';

/** Options of the PostgreSQL engine. */
export interface PostgresEngineOptions extends ServerEngineOptions<PostgresServer> {
  /**
   * `postgres://user:password@host:port/database`: an administrator account on a running server (a
   * superuser, or CREATEDB + CREATEROLE: checked at start, see `postgres-account-check.ts`). Without
   * it (and without `server`) the engine starts its own PostgreSQL server.
   */
  readonly url?: string;
  /** Options of the server the engine starts for itself. */
  readonly serverOptions?: PostgresServerOptions;
  /**
   * How text compares: `case-insensitive` (default) stores MySQL's character columns as `citext`,
   * like upstream's `utf8mb4_general_ci`; `case-sensitive` stores them as `text`. Without the
   * citext extension (package postgresql-contrib on older distributions) text is case-sensitive.
   */
  readonly textComparison?: 'case-insensitive' | 'case-sensitive';
  /**
   * `"x"` that names no column reads as the string `'x'`, as in MySQL (default true; Spider's gold
   * queries need it). False: PostgreSQL's rule, an error.
   */
  readonly doubleQuotedStrings?: boolean;
}

interface PreparedDatabase {
  readonly name: string;
  readonly sha256: string;
  readonly template: string;
  readonly sequenceReset: string;
  /** Foreign keys of the dump that PostgreSQL refused (kept out), with the reason. */
  readonly skippedForeignKeys: readonly string[];
  /** The dump model of the database's tables, for MySQL introspection (`postgres-catalogue.ts`). */
  readonly schema: PostgresPristineSchema;
  /** Bytes a copy may take before its session's reset makes it anew: the template's size and a margin. */
  readonly copyBytes: number;
  readonly free: PostgresSlot[];
  slots: number;
}

/**
 * How much a copy may grow (rows its sessions wrote and rolled back stay in its files: autovacuum is
 * off) before a reset makes it anew from its template, so that episodes never pile data up in it.
 */
const COPY_GROWTH_BYTES = 32 * 2 ** 20;

/** Template databases built at once by `prepare`. */
const PREPARE_WORKERS = 3;

/**
 * The PostgreSQL engine, through pg: a server the engine starts for itself (`PostgresServer`:
 * private, Unix socket only, stopped at `close`) or one given by URL (its account checked first:
 * `postgres-account-check.ts`). Each dump database is converted (`postgres-schema.ts`: MySQL types
 * mapped, names in lower case, text as `citext`) into a template database once per server; each
 * session gets its own database copied from the template (`CREATE DATABASE … TEMPLATE`) and its own
 * role, a member of `ic_agent`, which owns the tables (`PostgresSession`: the episode is one
 * transaction, a reset a rollback). Conversion, copies and resets: `docs/architecture/sql-engines.md`.
 */
export class PostgresEngine
  extends ServerEngine<
    PostgresBackend,
    PreparedDatabase,
    PostgresSlot,
    PostgresSession,
    PostgresEngineOptions
  >
  implements SqlEngine
{
  protected readonly title = 'PostgreSQL';
  protected readonly naming = {
    databaseLength: 63,
    accountLength: 63,
    reserved: new Set(['postgres', 'template0', 'template1']),
    ownPrefix: 'ic_',
  };
  readonly id = 'postgres' as const;
  /** An engine whose server is started (or reached) already: start-up errors surface here. */
  static start(options: PostgresEngineOptions = {}): Promise<PostgresEngine> {
    return new PostgresEngine(options).connected();
  }

  /** How text compares in this engine's databases (`citext`, or `text` without the extension). */
  async textMode(): Promise<PostgresTextMode> {
    return (await this.backend()).textMode;
  }

  /** Foreign keys of a prepared database that PostgreSQL refused (left out), with the reason. */
  skippedForeignKeys(database: string): readonly string[] {
    return this.prepared.find(database)?.skippedForeignKeys ?? [];
  }

  protected get dataSettings(): string {
    return `c${POSTGRES_CONVERTER_VERSION}-${this.options.textComparison ?? 'default'}`;
  }

  protected startServer(extra: ManagedServerOptions): Promise<PostgresServer> {
    return PostgresServer.start({ ...this.options.serverOptions, ...extra });
  }

  protected onServer(server: PostgresServer): PostgresEngine {
    const { url: _url, preload: _preload, ...options } = this.options;
    return new PostgresEngine({ ...options, server });
  }

  protected endpointOf(server: PostgresServer | undefined, url: string): PostgresEndpoint {
    return server ? server.adminConnection() : parsePostgresUrl(url);
  }

  protected openPool(endpoint: PostgresEndpoint): pg.Pool {
    const pool = new pg.Pool({ ...endpoint, max: 6, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 0 });
    pool.on('error', () => {});
    return pool;
  }

  protected async inspect(
    pool: pg.Pool,
    endpoint: PostgresEndpoint,
    servers: Pick<PostgresBackend, 'ownServer' | 'server' | 'shared'>,
  ): Promise<PostgresBackend> {
    const { rows } = await pool.query<{ version: string; superuser: boolean; citext: boolean }>(
      "SELECT current_setting('server_version_num') AS version, rolsuper AS superuser, EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'citext') AS citext FROM pg_roles WHERE rolname = current_user",
    );
    const row = rows[0];
    if (!row) throw new Error('the administrator account is not a role');
    const caseSensitive = this.options.textComparison === 'case-sensitive';
    return {
      pool,
      endpoint,
      versionNum: Number(row.version),
      superuser: row.superuser,
      textMode: row.citext && !caseSensitive ? 'citext' : 'text',
      ...servers,
    };
  }

  protected checkAccount(backend: PostgresBackend): Promise<void> {
    return checkPostgresAccount(backend);
  }

  /** The role that owns the templates' tables, this account a member; a server of our own closed to PUBLIC. */
  protected override async setUp(backend: PostgresBackend): Promise<void> {
    await backend.pool.query(
      `DO $$ BEGIN CREATE ROLE ${AGENT_ROLE} NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`,
    );
    if (!backend.superuser) await backend.pool.query(`GRANT ${AGENT_ROLE} TO CURRENT_USER`).catch(() => {});
    if (backend.ownServer)
      await backend.pool.query('REVOKE CONNECT, TEMPORARY ON DATABASE postgres, template1 FROM PUBLIC');
  }

  protected isLocal(endpoint: PostgresEndpoint): boolean {
    return isLocalPostgres(endpoint);
  }

  /** Templates build in parallel: most of the time is the server copying template0 and loading. */
  protected async load(
    backend: PostgresBackend,
    dump: DumpModel,
    databases: readonly DumpDatabase[],
  ): Promise<void> {
    const queue = [...databases];
    const worker = async () => {
      for (let database = queue.shift(); database; database = queue.shift()) {
        const mode = backend.textMode === 'citext' ? '' : 't';
        const template = this.templateName(dump, database, `${POSTGRES_CONVERTER_VERSION}${mode}`);
        const built = await buildPostgresTemplate(backend, database, template);
        const { rows } = await backend.pool.query<{ size: string }>(
          'SELECT pg_database_size($1)::text AS size',
          [template],
        );
        this.prepared.add({
          copyBytes: Number(rows[0]?.size ?? 0) + COPY_GROWTH_BYTES,
          name: database.name,
          sha256: dump.sha256,
          template,
          ...built,
          schema: postgresPristineSchema(database, backend.textMode),
          free: [],
          slots: 0,
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(PREPARE_WORKERS, databases.length) }, worker));
  }

  /** A new session copy: its role (member of `ic_agent`) and its database, copied from the template. */
  protected async makeSlot(
    backend: PostgresBackend,
    prepared: PreparedDatabase,
    database: string,
    role: string,
    readerRole: string,
  ): Promise<PostgresSlot> {
    const password = randomBytes(18).toString('base64url');
    const reader = { role: readerRole, password: randomBytes(18).toString('base64url') };
    this.made(backend, database, role);
    this.made(backend, database, reader.role);
    const limited = 'NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS';
    const statements = [
      `CREATE ROLE ${pgName(role)} LOGIN PASSWORD ${pgString(password)} ${limited} IN ROLE ${AGENT_ROLE}`,
      // The reader (the reference connection's role) runs only read-only transactions. The session's
      // role is no member of it, so it sees none of its activity; with a superuser, its statements
      // are not even counted in the statistics views (track_counts, track_activities).
      `CREATE ROLE ${pgName(reader.role)} LOGIN PASSWORD ${pgString(reader.password)} ${limited} IN ROLE ${AGENT_ROLE}`,
      `ALTER ROLE ${pgName(reader.role)} SET default_transaction_read_only = on`,
      ...(backend.superuser
        ? [
            `ALTER ROLE ${pgName(reader.role)} SET track_counts = off`,
            `ALTER ROLE ${pgName(reader.role)} SET track_activities = off`,
          ]
        : [`GRANT ${pgName(role)}, ${pgName(reader.role)} TO CURRENT_USER`]),
    ];
    const slot = { database, role, password, reader, sequenceReset: prepared.sequenceReset };
    try {
      for (const statement of statements) await backend.pool.query(statement);
      for (const statement of copyStatements(backend, prepared, slot)) await backend.pool.query(statement);
    } catch (error) {
      throw this.copyFailure(database, error);
    }
    return slot;
  }

  /** Drops a session's copy (ending its connections) and makes it again from the template. */
  private async recreate(backend: PostgresBackend, prepared: PreparedDatabase, slot: PostgresSlot) {
    try {
      if (backend.versionNum < 130000) {
        await backend.pool.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [slot.database],
        );
      }
      await backend.pool.query(`DROP DATABASE IF EXISTS ${pgName(slot.database)}${dropForce(backend)}`);
      const [create, ...grants] = copyStatements(backend, prepared, slot);
      await createWhenRoomFrees(backend, create as string);
      for (const statement of grants) await backend.pool.query(statement);
      slot.stale = false;
    } catch (error) {
      throw this.copyFailure(slot.database, error);
    }
  }

  private copyFailure(database: string, error: unknown): SqlEngineError {
    return (
      this.failure ??
      new SqlEngineError('SQL_ENGINE_FAILED', `creating ${database} failed: ${errorReason(error)}`, {
        cause: error,
      })
    );
  }

  protected async openSession(
    backend: PostgresBackend,
    prepared: PreparedDatabase,
    slot: PostgresSlot,
  ): Promise<PostgresSession> {
    if (slot.stale) await this.recreate(backend, prepared, slot);
    const { host, port } = backend.endpoint;
    const sessionHost = {
      ...this.sessionHost(backend),
      endpoint: { host, ...(port !== undefined ? { port } : {}) },
      doubleQuotedStrings: this.options.doubleQuotedStrings ?? true,
      copyBytes: prepared.copyBytes,
      recreate: () => this.recreate(backend, prepared, slot),
    };
    return PostgresSession.open(prepared.name, slot, sessionHost, prepared.schema);
  }

  protected async interrupt(backend: PostgresBackend, pid: number, how: Interruption): Promise<void> {
    const fn = how === 'cancel' ? 'pg_cancel_backend' : 'pg_terminate_backend';
    await backend.pool.query(`SELECT ${fn}($1)`, [pid]).catch(() => {});
  }

  protected async listDatabases(backend: PostgresBackend): Promise<string[]> {
    const { rows } = await backend.pool.query<{ name: string }>(
      "SELECT datname AS name FROM pg_database WHERE datname LIKE 'ic\\_%'",
    );
    return rows.map((row) => row.name);
  }

  protected async listAccounts(backend: PostgresBackend): Promise<{ name: string; account: string }[]> {
    const { rows } = await backend.pool.query<{ name: string }>(
      "SELECT rolname AS name FROM pg_roles WHERE rolname LIKE 'ic\\_%'",
    );
    return rows.map((row) => ({ name: row.name, account: row.name }));
  }

  protected async dropDatabase(backend: PostgresBackend, database: string): Promise<void> {
    await backend.pool
      .query(`DROP DATABASE IF EXISTS ${pgName(database)}${dropForce(backend)}`)
      .catch(() => {});
  }

  protected async dropAccount(backend: PostgresBackend, role: string): Promise<void> {
    await backend.pool.query(`DROP ROLE IF EXISTS ${pgName(role)}`).catch(() => {});
  }
}

/** SQLSTATE `disk_full`. */
const DISK_FULL = '53100';
/** How long a copy's creation waits for the store to free the pages of the copy dropped before it. */
const ROOM_WAIT_MS = 10_000;

/**
 * Runs `CREATE DATABASE`, again while it fails for a full store, for up to ROOM_WAIT_MS. A copy
 * that outgrew its size may have filled the store; dropping it removes its files, but a tmpfs frees
 * a file's pages only once no process holds it open, and the backends the drop ended leave the
 * server's process list before they exit and close their files: on a busy machine the new copy can
 * come first. A store too small for the template still fails, after the wait.
 */
async function createWhenRoomFrees(backend: PostgresBackend, create: string): Promise<void> {
  const deadline = Date.now() + ROOM_WAIT_MS;
  for (let pauseMs = 20; ; pauseMs = Math.min(500, pauseMs * 2)) {
    try {
      await backend.pool.query(create);
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== DISK_FULL || Date.now() + pauseMs > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}

/** A session copy made from its template, open to its two roles only. */
function copyStatements(backend: PostgresBackend, prepared: PreparedDatabase, slot: PostgresSlot): string[] {
  const strategy = backend.versionNum >= 150000 ? ' STRATEGY FILE_COPY' : '';
  const database = pgName(slot.database);
  return [
    `CREATE DATABASE ${database} TEMPLATE ${pgName(prepared.template)}${strategy}`,
    `REVOKE ALL ON DATABASE ${database} FROM PUBLIC`,
    `GRANT CONNECT, TEMPORARY ON DATABASE ${database} TO ${pgName(slot.role)}`,
    `GRANT CONNECT ON DATABASE ${database} TO ${pgName(slot.reader.role)}`,
  ];
}
