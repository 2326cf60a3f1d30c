import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { currentOwner, isOwnerAlive } from '../../../core/host/owner.js';
import type { DumpDatabase, DumpModel } from '../../dump/dump-model.js';
import { PostgresServer, type PostgresServerOptions } from '../../server/postgres-server.js';
import { objectName } from '../object-name.js';
import { ServerEngine } from '../server-engine.js';
import type { SqlEngine } from '../sql-engine.js';
import { SqlEngineError } from '../sql-engine-error.js';
import { type PostgresPristineSchema, postgresPristineSchema } from './postgres-catalogue.js';
import {
  POSTGRES_CONVERTER_VERSION,
  type PostgresTextMode,
  pgDatabase,
  pgName,
  pgString,
} from './postgres-schema.js';
import { PostgresSession, type PostgresSessionHost, type PostgresSlot } from './postgres-session.js';
import { isLocalPostgres, type PostgresEndpoint, parsePostgresUrl } from './postgres-url.js';

/** Options of the PostgreSQL engine. */
export interface PostgresEngineOptions {
  /**
   * `postgres://user:password@host:port/database`: an administrator account on a running server (a
   * superuser, or CREATEDB + CREATEROLE). Without it (and without `server`) the engine starts its
   * own PostgreSQL server.
   */
  readonly url?: string;
  /** A server started by the caller, shared; `close()` leaves it running. */
  readonly server?: PostgresServer;
  /** Options of the server the engine starts for itself. */
  readonly serverOptions?: PostgresServerOptions;
  /** Rows counted in all before counting stops (`totalRowsCapped`), default 100,000. */
  readonly countLimit?: number;
  /** Time between `pg_cancel_backend` and `pg_terminate_backend` when a query does not stop, default 2 s. */
  readonly killGraceMs?: number;
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
  readonly free: PostgresSlot[];
  slots: number;
}

interface Backend {
  readonly pool: pg.Pool;
  readonly endpoint: PostgresEndpoint;
  /** `server_version_num`, e.g. 150018. */
  readonly versionNum: number;
  readonly superuser: boolean;
  readonly textMode: PostgresTextMode;
  readonly ownServer?: PostgresServer;
  readonly server?: PostgresServer;
  /** A server the engine did not start: names carry the owner label, templates are reused. */
  readonly shared: boolean;
}

/** The role that owns every template's tables; session roles are its members (NOLOGIN). */
const AGENT_ROLE = 'ic_agent';
/** Database names that are the server's own. */
const RESERVED = new Set(['postgres', 'template0', 'template1']);
/** What a ready template's comment starts with (the rest is JSON). */
const READY = 'intercode template ';

let engines = 0;

/** Template databases built at once by `prepare`. */
const PREPARE_WORKERS = 3;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The PostgreSQL engine, through pg: a server the engine starts for itself (`PostgresServer`:
 * private, Unix socket only, stopped at `close`) or one given by URL.
 *
 * **Conversion** (`postgres-schema.ts`): one PostgreSQL database per dump database, built once per
 * server as a *template* database; MySQL types mapped (int → integer, double → double precision,
 * decimal(p,s) → numeric(p,s), datetime → timestamp(0), text and varchar → citext, AUTO_INCREMENT →
 * identity); names in lower case, so that unquoted names in any case work (PostgreSQL folds them;
 * a quoted `"Name"` or a MySQL backtick does not). Text columns are `citext`, compared
 * case-insensitively like upstream's `utf8mb4_general_ci` (`=`, `<`, `LIKE`, `IN`, `GROUP BY`,
 * `DISTINCT`, `ORDER BY`, unique keys), though not accent-insensitively, nor with trailing blanks
 * ignored, and only where a citext value meets a citext value or a literal: `upper(x) = 'A'`
 * compares text, case-sensitively. A nondeterministic ICU collation would be faster (6 ms vs 40 ms
 * on a 5,000 × 5,000 text join here; plain text: 3 ms) but PostgreSQL 15 refuses `LIKE` on it,
 * and Spider's queries use LIKE throughout.
 *
 * **Isolation**: every session gets its own database, a copy of the template (`CREATE DATABASE …
 * TEMPLATE`, 15–30 ms with the server on tmpfs, at `open`), and its own role: a member of
 * `ic_agent` (which owns the tables, so DDL works), CONNECT on that database only, not a superuser,
 * no file or program roles. A database is a stronger boundary than a schema (no shared objects, no
 * locks in common; the role cannot even connect elsewhere) and costs nothing per reset. The first
 * session on a database of a self-started server gets the dump's name (`concert_singer`),
 * concurrent ones `concert_singer__2`, …; on a URL server `ic_<owner>_<engine>_<database>_<n>`
 * (dropped at `close`; leftovers of dead intercode processes dropped at the next start when the
 * server is local). Copies are kept for the next `open` when a session closes.
 *
 * **Reset** (`PostgresSession`): the episode is one transaction, so a reset is a rollback, whatever
 * ran (0.3–0.6 ms p50 on Spider); the agent's own BEGIN/COMMIT/ROLLBACK/SAVEPOINT/VACUUM are
 * refused. **Time limit**: `pg_cancel_backend`. **Rows**: a server-side cursor (`FETCH` + `MOVE`).
 */
export class PostgresEngine
  extends ServerEngine<Backend, PreparedDatabase, PostgresSlot, PostgresSession>
  implements SqlEngine
{
  protected readonly title = 'PostgreSQL';
  readonly id = 'postgres' as const;
  readonly #options: PostgresEngineOptions;
  #roles = 0;
  readonly #tag = `${currentOwner()}_${++engines}`;
  readonly #made = { databases: new Set<string>(), roles: new Set<string>() };

  constructor(options: PostgresEngineOptions = {}) {
    super();
    if (options.url && options.server) {
      throw new SqlEngineError('SQL_ENGINE_FAILED', 'PostgresEngine takes a url or a server, not both');
    }
    this.#options = options;
  }

  /** An engine whose server is started (or reached) already: start-up errors surface here. */
  static start(options: PostgresEngineOptions = {}): Promise<PostgresEngine> {
    return new PostgresEngine(options).connected();
  }

  /** The server this engine uses (started for itself or given), if any. */
  async server(): Promise<PostgresServer | undefined> {
    return (await this.backend()).server;
  }

  /** How text compares in this engine's databases (`citext`, or `text` without the extension). */
  async textMode(): Promise<PostgresTextMode> {
    return (await this.backend()).textMode;
  }

  /** Foreign keys of a prepared database that PostgreSQL refused (left out), with the reason. */
  skippedForeignKeys(database: string): readonly string[] {
    return this.prepared.get(database.toLowerCase())?.skippedForeignKeys ?? [];
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
    const pending = dump.databases.filter((database) => !this.prepared.has(database.name.toLowerCase()));
    // Templates build in parallel: most of the time is the server copying template0 and loading.
    const queue = [...pending];
    const worker = async () => {
      for (let database = queue.shift(); database; database = queue.shift()) {
        const mode = backend.textMode === 'citext' ? '' : 't';
        const template = objectName(
          [
            'ic',
            `t${dump.sha256.slice(0, 8)}c${POSTGRES_CONVERTER_VERSION}${mode}`,
            database.name.toLowerCase(),
          ],
          63,
        );
        const built = await this.buildTemplate(backend, database, template);
        this.prepared.set(database.name.toLowerCase(), {
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
    await Promise.all(Array.from({ length: Math.min(PREPARE_WORKERS, pending.length) }, worker));
  }

  protected openSession(
    backend: Backend,
    prepared: PreparedDatabase,
    slot: PostgresSlot,
  ): Promise<PostgresSession> {
    return PostgresSession.open(prepared.name, slot, this.host(backend), prepared.schema);
  }

  protected async connect(): Promise<Backend> {
    const ownServer =
      this.#options.url || this.#options.server
        ? undefined
        : await PostgresServer.start(this.#options.serverOptions);
    const given = ownServer ?? this.#options.server;
    const endpoint: PostgresEndpoint = given
      ? given.adminConnection()
      : parsePostgresUrl(this.#options.url ?? '');
    const server = given;
    const pool = new pg.Pool({ ...endpoint, max: 6, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 0 });
    pool.on('error', () => {});
    try {
      const { rows } = await pool.query<{ version: string; superuser: boolean; citext: boolean }>(
        "SELECT current_setting('server_version_num') AS version, rolsuper AS superuser, EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'citext') AS citext FROM pg_roles WHERE rolname = current_user",
      );
      const row = rows[0];
      if (!row) throw new Error('the administrator account is not a role');
      const caseSensitive = this.#options.textComparison === 'case-sensitive';
      const backend: Backend = {
        pool,
        endpoint,
        versionNum: Number(row.version),
        superuser: row.superuser,
        textMode: row.citext && !caseSensitive ? 'citext' : 'text',
        ...(ownServer ? { ownServer } : {}),
        ...(server ? { server } : {}),
        shared: !ownServer,
      };
      server?.onExit((exit) => {
        const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
        this.failure ??= new SqlEngineError(
          'SQL_ENGINE_FAILED',
          `the PostgreSQL server exited (${how}): ${server.logTail() || 'no log'}`,
        );
      });
      await pool.query(
        `DO $$ BEGIN CREATE ROLE ${AGENT_ROLE} NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`,
      );
      if (!backend.superuser) await pool.query(`GRANT ${AGENT_ROLE} TO CURRENT_USER`).catch(() => {});
      if (ownServer)
        await pool.query('REVOKE CONNECT, TEMPORARY ON DATABASE postgres, template1 FROM PUBLIC');
      if (backend.shared && isLocalPostgres(endpoint)) await this.reapDeadOwners(backend);
      return backend;
    } catch (error) {
      await pool.end().catch(() => {});
      await ownServer?.stop();
      if (error instanceof SqlEngineError) throw error;
      throw new SqlEngineError(
        'SQL_ENGINE_UNAVAILABLE',
        `cannot reach the PostgreSQL server: ${message(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  /** A client of the administrator account on one database. */
  private async adminClient(backend: Backend, database: string): Promise<pg.Client> {
    const client = new pg.Client({ ...backend.endpoint, database, connectionTimeoutMillis: 10_000 });
    client.on('error', () => {});
    await client.connect();
    return client;
  }

  private async buildTemplate(
    backend: Backend,
    database: DumpDatabase,
    template: string,
  ): Promise<{ sequenceReset: string; skippedForeignKeys: string[] }> {
    const lock = await backend.pool.connect();
    try {
      await lock.query('SELECT pg_advisory_lock(hashtext($1))', [`intercode:${template}`]);
      const { rows } = await lock.query<{ comment: string | null }>(
        "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
        [template],
      );
      const comment = rows[0]?.comment ?? '';
      if (comment.startsWith(READY)) {
        return JSON.parse(comment.slice(READY.length)) as {
          sequenceReset: string;
          skippedForeignKeys: string[];
        };
      }
      const force = backend.versionNum >= 130000 ? ' WITH (FORCE)' : '';
      await lock.query(`DROP DATABASE IF EXISTS ${pgName(template)}${force}`);
      await lock.query(`CREATE DATABASE ${pgName(template)} TEMPLATE template0 ENCODING 'UTF8'`);
      await lock.query(`REVOKE ALL ON DATABASE ${pgName(template)} FROM PUBLIC`);
      const built = await this.loadTemplate(backend, database, template);
      await lock.query(
        `COMMENT ON DATABASE ${pgName(template)} IS ${pgString(READY + JSON.stringify(built))}`,
      );
      return built;
    } catch (error) {
      if (error instanceof SqlEngineError) throw error;
      throw new SqlEngineError(
        'SQL_ENGINE_FAILED',
        `database ${database.name} does not load into PostgreSQL: ${message(error)}`,
        {
          cause: error,
        },
      );
    } finally {
      await lock.query('SELECT pg_advisory_unlock(hashtext($1))', [`intercode:${template}`]).catch(() => {});
      lock.release();
    }
  }

  /**
   * Fills a new template database in one transaction, as the `ic_agent` role (which then owns the
   * tables): tables, rows, indexes, identity counters, then each foreign key in its own savepoint
   * (PostgreSQL refuses some that MySQL takes, e.g. onto columns without a unique key: those are
   * left out and reported). Returns the statement that puts the sequences back.
   */
  private async loadTemplate(
    backend: Backend,
    database: DumpDatabase,
    template: string,
  ): Promise<{ sequenceReset: string; skippedForeignKeys: string[] }> {
    const tables = pgDatabase(database, backend.textMode);
    const client = await this.adminClient(backend, template);
    const skippedForeignKeys: string[] = [];
    try {
      if (backend.textMode === 'citext') await client.query('CREATE EXTENSION IF NOT EXISTS citext');
      await client.query(`GRANT USAGE, CREATE ON SCHEMA public TO ${AGENT_ROLE}`);
      await client.query(`BEGIN; SET LOCAL ROLE ${AGENT_ROLE}`);
      for (const [index, table] of tables.entries()) {
        try {
          await client.query(
            [table.create, ...table.inserts, ...table.indexes, ...table.sequences].join(';\n'),
          );
        } catch (error) {
          const source = database.tables[index]!;
          throw new SqlEngineError(
            'SQL_ENGINE_FAILED',
            `${database.name}.${source.name} (dump line ${source.line}) does not load into PostgreSQL: ${message(error)}`,
            { cause: error },
          );
        }
      }
      for (const table of tables) {
        for (const key of table.foreignKeys) {
          await client.query('SAVEPOINT fk');
          try {
            await client.query(key);
            await client.query('RELEASE SAVEPOINT fk');
          } catch (error) {
            await client.query('ROLLBACK TO SAVEPOINT fk');
            skippedForeignKeys.push(`${key}: ${message(error)}`);
          }
        }
      }
      // pg_sequences hides last_value when is_called is false: read each sequence itself.
      const { rows: sequences } = await client.query<{ name: string }>(
        "SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename) AS name FROM pg_sequences",
      );
      const resets: string[] = [];
      for (const { name } of sequences) {
        const { rows: state } = await client.query<{ last: string; called: boolean }>(
          `SELECT last_value::text AS last, is_called AS called FROM ${name}`,
        );
        const row = state[0];
        if (row) resets.push(`setval(${pgString(name)}, ${row.last}, ${row.called})`);
      }
      await client.query('COMMIT');
      return { sequenceReset: resets.length > 0 ? `SELECT ${resets.join(', ')}` : '', skippedForeignKeys };
    } finally {
      await client.end().catch(() => {});
    }
  }

  /** A new session copy: its role (member of `ic_agent`) and its database, copied from the template. */
  protected async newSlot(backend: Backend, prepared: PreparedDatabase): Promise<PostgresSlot> {
    prepared.slots += 1;
    const index = prepared.slots;
    const lower = prepared.name.toLowerCase();
    const database = backend.shared
      ? objectName(['ic', this.#tag, lower, String(index)], 63)
      : index === 1 && !RESERVED.has(lower) && !lower.startsWith('ic_')
        ? lower
        : objectName([lower, '', String(index)], 63);
    this.#roles += 1;
    const role = backend.shared ? objectName(['ic', this.#tag, `u${this.#roles}`], 63) : `ic_s${this.#roles}`;
    const password = randomBytes(18).toString('base64url');
    if (backend.shared) {
      this.#made.roles.add(role);
      this.#made.databases.add(database);
    }
    const strategy = backend.versionNum >= 150000 ? ' STRATEGY FILE_COPY' : '';
    const statements = [
      `CREATE ROLE ${pgName(role)} LOGIN PASSWORD ${pgString(password)} NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS IN ROLE ${AGENT_ROLE}`,
      ...(backend.superuser ? [] : [`GRANT ${pgName(role)} TO CURRENT_USER`]),
      `CREATE DATABASE ${pgName(database)} TEMPLATE ${pgName(prepared.template)}${strategy}`,
      `REVOKE ALL ON DATABASE ${pgName(database)} FROM PUBLIC`,
      `GRANT CONNECT, TEMPORARY ON DATABASE ${pgName(database)} TO ${pgName(role)}`,
    ];
    try {
      for (const statement of statements) await backend.pool.query(statement);
    } catch (error) {
      throw (
        this.failure ??
        new SqlEngineError('SQL_ENGINE_FAILED', `creating ${database} failed: ${message(error)}`, {
          cause: error,
        })
      );
    }
    return { database, role, password, sequenceReset: prepared.sequenceReset };
  }

  private host(backend: Backend): PostgresSessionHost {
    const { host, port } = backend.endpoint;
    return {
      endpoint: { host, ...(port !== undefined ? { port } : {}) },
      countLimit: this.#options.countLimit ?? 100_000,
      killGraceMs: this.#options.killGraceMs ?? 2_000,
      doubleQuotedStrings: this.#options.doubleQuotedStrings ?? true,
      failure: () => this.failure,
      health: () => this.health(backend),
      signal: async (pid, what) => {
        const fn = what === 'cancel' ? 'pg_cancel_backend' : 'pg_terminate_backend';
        await backend.pool.query(`SELECT ${fn}($1)`, [pid]).catch(() => {});
      },
      release: (session, slot) => {
        this.sessions.delete(session);
        this.prepared.get(session.database.toLowerCase())?.free.push(slot);
      },
    };
  }

  /** Undefined while the server answers; else the engine's failure (set once, for good). */

  /** Drops this engine's session copies and roles (on a shared server). */
  protected async dropMade(backend: Backend): Promise<void> {
    const force = backend.versionNum >= 130000 ? ' WITH (FORCE)' : '';
    for (const database of this.#made.databases) {
      await backend.pool.query(`DROP DATABASE IF EXISTS ${pgName(database)}${force}`).catch(() => {});
    }
    for (const role of this.#made.roles)
      await backend.pool.query(`DROP ROLE IF EXISTS ${pgName(role)}`).catch(() => {});
  }

  /** Drops session copies and roles left on a local shared server by intercode processes that died. */
  private async reapDeadOwners(backend: Backend): Promise<void> {
    const pattern = /^ic_(\d+_\d+)_/;
    const dead = (name: string) => {
      const owner = pattern.exec(name)?.[1];
      return owner !== undefined && !isOwnerAlive(owner);
    };
    const force = backend.versionNum >= 130000 ? ' WITH (FORCE)' : '';
    const { rows: databases } = await backend.pool.query<{ name: string }>(
      "SELECT datname AS name FROM pg_database WHERE datname LIKE 'ic\\_%'",
    );
    for (const { name } of databases) {
      if (dead(name))
        await backend.pool.query(`DROP DATABASE IF EXISTS ${pgName(name)}${force}`).catch(() => {});
    }
    const { rows: roles } = await backend.pool.query<{ name: string }>(
      "SELECT rolname AS name FROM pg_roles WHERE rolname LIKE 'ic\\_%'",
    );
    for (const { name } of roles) {
      if (dead(name)) await backend.pool.query(`DROP ROLE IF EXISTS ${pgName(name)}`).catch(() => {});
    }
  }
}
