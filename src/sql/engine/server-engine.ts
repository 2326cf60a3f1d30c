import type { ManagedServer } from '../server/managed-server.js';
import { unansweredServer } from './server-health.js';
import type { SqlSession } from './sql-engine.js';
import { SqlEngineError } from './sql-engine-error.js';

/** The connection of a server engine to its database server. */
export interface ServerBackend {
  readonly pool: { query(sql: string): Promise<unknown>; end(): Promise<void> };
  /** A server the engine started (and stops at close). */
  readonly ownServer?: ManagedServer;
  /** The server, when it is one of intercode's own (started by this engine or given to it). */
  readonly server?: ManagedServer;
  /** A server the engine did not start: what the engine made there is dropped at close. */
  readonly shared: boolean;
}

/** A prepared database of a server engine and its pool of session copies nobody uses. */
export interface PreparedServerDatabase<Slot> {
  readonly name: string;
  readonly free: Slot[];
}

/**
 * What the MariaDB and PostgreSQL engines share: one backend connection made on first use, a
 * failure that sticks once the server is gone, sessions opened on pooled database copies ("slots")
 * and closed with the engine, and a close that drops what the engine made on a shared server,
 * ends the pool and stops a server of its own.
 */
export abstract class ServerEngine<
  Backend extends ServerBackend,
  Prepared extends PreparedServerDatabase<Slot>,
  Slot,
  Session extends SqlSession,
> {
  /** Prepared databases by lower-cased name. */
  protected readonly prepared = new Map<string, Prepared>();
  protected readonly sessions = new Set<Session>();
  protected closed = false;
  /** Set once the server is gone: every later call fails with it. */
  protected failure: SqlEngineError | undefined;
  #backend: Promise<Backend> | undefined;

  /** `MySQL`, `PostgreSQL`: for messages. */
  protected abstract readonly title: string;
  protected abstract connect(): Promise<Backend>;
  /** A new database copy (and account) for sessions of `prepared`. */
  protected abstract newSlot(backend: Backend, prepared: Prepared): Promise<Slot>;
  protected abstract openSession(backend: Backend, prepared: Prepared, slot: Slot): Promise<Session>;
  /** Drops the copies and accounts this engine made on a shared server. */
  protected abstract dropMade(backend: Backend): Promise<void>;

  /** A new session on one prepared database, on a free copy or a new one. */
  async open(database: string): Promise<SqlSession> {
    this.assertUsable();
    const prepared = this.prepared.get(database.toLowerCase());
    if (!prepared)
      throw new SqlEngineError('SQL_DATABASE_UNKNOWN', `no prepared dump defines database ${database}`);
    const backend = await this.backend();
    const slot = prepared.free.pop() ?? (await this.newSlot(backend, prepared));
    let session: Session;
    try {
      session = await this.openSession(backend, prepared, slot);
    } catch (error) {
      prepared.free.push(slot);
      throw this.failure ?? error;
    }
    if (this.closed) {
      await session.close();
      this.assertUsable();
    }
    this.sessions.add(session);
    return session;
  }

  async close(): Promise<void> {
    if (this.closed && !this.#backend) return;
    this.closed = true;
    await Promise.all([...this.sessions].map((session) => session.close().catch(() => {})));
    const pending = this.#backend;
    this.#backend = undefined;
    const backend = await pending?.catch(() => undefined);
    if (!backend) return;
    if (backend.shared && !this.failure) await this.dropMade(backend).catch(() => {});
    await backend.pool.end().catch(() => {});
    await backend.ownServer?.stop();
  }

  /** Names of the prepared databases, as the dumps spell them. */
  databases(): string[] {
    return [...this.prepared.values()].map((prepared) => prepared.name);
  }

  protected assertUsable(): void {
    if (this.closed) throw new SqlEngineError('SQL_SESSION_CLOSED', `the ${this.title} engine is closed`);
    if (this.failure) throw this.failure;
  }

  /** This engine with its backend connected already, so that start-up errors surface here (closed on failure). */
  protected async connected(): Promise<this> {
    try {
      await this.backend();
    } catch (error) {
      await this.close();
      throw error;
    }
    return this;
  }

  /** The backend, connected on first use (a failed attempt is retried by the next call). */
  protected backend(): Promise<Backend> {
    this.#backend ??= this.connect().catch((error: unknown) => {
      this.#backend = undefined;
      throw error;
    });
    return this.#backend;
  }

  /** The failure of a server that no longer answers (it then sticks), else the current one. */
  protected async health(backend: Backend): Promise<SqlEngineError | undefined> {
    if (this.failure) return this.failure;
    const failure = await unansweredServer(() => backend.pool.query('SELECT 1'), backend.server, this.title);
    if (failure) this.failure ??= failure;
    return this.failure;
  }
}
