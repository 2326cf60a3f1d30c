import { fileURLToPath } from 'node:url';
import { debugLine } from '../../core/host/debug-line.js';
import { currentOwner, isOwnerAlive } from '../../core/host/owner.js';
import { sourceFingerprint } from '../../core/host/source-fingerprint.js';
import type { DumpDatabase, DumpModel } from '../dump/dump-model.js';
import type { Preload, PreloadOutcome } from '../server/loaded-data-cache.js';
import { describeExit, type ManagedServerOptions } from '../server/managed-server.js';
import { objectName } from './object-name.js';
import { PreparedDatabases } from './prepared-databases.js';
import type {
  PreparedServerDatabase,
  ServerBackend,
  ServerEngineOptions,
  ServerNaming,
} from './server-engine-options.js';
import { unansweredServer } from './server-health.js';
import type { Interruption, ServerSessionHost } from './server-session.js';
import type { SqlSession } from './sql-engine.js';
import { errorReason, SqlEngineError } from './sql-engine-error.js';

export type {
  PreparedServerDatabase,
  ServerBackend,
  ServerEngineOptions,
  ServerNaming,
} from './server-engine-options.js';

let engines = 0;

/** The SQL code (`src/sql`): the loaded data's key has its fingerprint. */
const SQL_CODE = fileURLToPath(new URL('..', import.meta.url));

/** `ic_<pid>_<start>` of names on a shared server, when the process that made them is dead. */
function deadOwner(name: string): boolean {
  const owner = /^ic_(\d+_\d+)_/.exec(name)?.[1];
  return owner !== undefined && !isOwnerAlive(owner);
}

/**
 * What the MariaDB and PostgreSQL engines share: a server started for the engine or reached by
 * URL (the account's privileges checked first), one backend connection made on first use, a
 * failure that sticks once the server is gone, databases prepared once per dump as templates,
 * sessions opened on pooled database copies ("slots") each with its own account, names on a shared
 * server that carry the owner label (leftovers of dead owners reaped at start when the server is
 * local), and a close that drops what the engine made on a shared server, ends the pool and stops
 * a server of its own.
 *
 * Each engine supplies its server's steps: how to start it, reach it and inspect it, check the
 * account, load templates, make a copy and open a session on it, and the statements that list and
 * drop databases and accounts.
 */
export abstract class ServerEngine<
  Backend extends ServerBackend,
  Prepared extends PreparedServerDatabase<Slot>,
  Slot,
  Session extends SqlSession,
  Options extends ServerEngineOptions<NonNullable<Backend['server']>>,
> {
  protected readonly prepared = new PreparedDatabases<Prepared>();
  protected readonly sessions = new Set<Session>();
  protected closed = false;
  /** Set once the server is gone: every later call fails with it. */
  protected failure: SqlEngineError | undefined;
  #backend: Promise<Backend> | undefined;
  protected readonly options: Options;
  /** `<owner>_<n>`: names on a shared server carry it (n tells engines of one process apart). */
  readonly #tag = `${currentOwner()}_${++engines}`;
  #accounts = 0;
  /** The reference connection of each copy (`SqlSession.referenceQuery`), kept with the copy. */
  readonly #references = new Map<Slot, Promise<SqlSession>>();
  /** Session copies and accounts this engine made on a shared server (dropped at close). */
  readonly #made = { databases: new Set<string>(), accounts: new Set<string>() };
  #dataCache: PreloadOutcome | undefined;

  /** Options have no required field: an engine without any starts a server of its own. */
  constructor(options: Options = {} as Options) {
    if (options.url && options.server) {
      throw new SqlEngineError('SQL_ENGINE_FAILED', `${new.target.name} takes a url or a server, not both`);
    }
    this.options = options;
  }

  /** `MySQL`, `PostgreSQL`: for messages. */
  protected abstract readonly title: string;
  protected abstract readonly naming: ServerNaming;
  /** Starts a server of the engine's own, with these options over the engine's server options. */
  protected abstract startServer(extra: ManagedServerOptions): Promise<NonNullable<Backend['ownServer']>>;
  /** An engine of the same kind and options on `server` (shared: `close` leaves it running). */
  protected abstract onServer(
    server: NonNullable<Backend['server']>,
  ): ServerEngine<Backend, Prepared, Slot, Session, Options>;
  /** What the engine's loaded data depends on besides the dump and the code (converter, text mode). */
  protected abstract readonly dataSettings: string;
  /** The administrator endpoint of an intercode server, or of the server a URL names. */
  protected abstract endpointOf(
    server: NonNullable<Backend['server']> | undefined,
    url: string,
  ): Backend['endpoint'];
  /** The administrator connection pool (no connection made yet). */
  protected abstract openPool(endpoint: Backend['endpoint']): Backend['pool'];
  /** Asks the server what it is and makes the backend. */
  protected abstract inspect(
    pool: Backend['pool'],
    endpoint: Backend['endpoint'],
    servers: Pick<ServerBackend, 'ownServer' | 'server' | 'shared'>,
  ): Promise<Backend>;
  /** Throws `SQL_ACCOUNT_PRIVILEGES` when the URL's account lacks what the engine needs. */
  protected abstract checkAccount(backend: Backend): Promise<void>;
  /** What the engine sets up on a server before any template (roles). */
  protected async setUp(_backend: Backend): Promise<void> {}
  protected abstract isLocal(endpoint: Backend['endpoint']): boolean;
  /** Builds the templates of the dump's `databases` (not prepared yet) and records them. */
  protected abstract load(
    backend: Backend,
    dump: DumpModel,
    databases: readonly DumpDatabase[],
  ): Promise<void>;
  /**
   * A new copy of `prepared` named `database`, with the account `account` (the session's) and the
   * account `reader` (the session's reference connection: reads only, see `referenceQuery`).
   */
  protected abstract makeSlot(
    backend: Backend,
    prepared: Prepared,
    database: string,
    account: string,
    reader: string,
  ): Promise<Slot>;
  protected abstract openSession(backend: Backend, prepared: Prepared, slot: Slot): Promise<Session>;
  /** Stops the statement of a session's connection from the administrator pool. */
  protected abstract interrupt(backend: Backend, backendId: number, how: Interruption): Promise<void>;
  /** Every database on the server the administrator sees. */
  protected abstract listDatabases(backend: Backend): Promise<string[]>;
  /** Accounts of intercode's on the server: their name, and how `dropAccount` names them. */
  protected abstract listAccounts(backend: Backend): Promise<{ name: string; account: string }[]>;
  protected abstract dropDatabase(backend: Backend, database: string): Promise<void>;
  protected abstract dropAccount(backend: Backend, account: string): Promise<void>;

  /** Where the data of the engine's own server came from (`preload`), once it started with one. */
  get dataCache(): PreloadOutcome | undefined {
    return this.#dataCache;
  }

  /** The server this engine uses (started for itself or given), if any. */
  async server(): Promise<NonNullable<Backend['server']> | undefined> {
    return (await this.backend()).server as NonNullable<Backend['server']> | undefined;
  }

  /**
   * Loads the dump's databases as templates on the server (once per server: kept there for the
   * next process on a URL server). Database names are case-insensitive; two dumps that define the
   * same database name with different content are an error.
   */
  async prepare(dump: DumpModel): Promise<void> {
    this.assertUsable();
    this.prepared.assertCompatible(dump);
    const backend = await this.backend();
    await this.load(backend, dump, this.prepared.pending(dump));
  }

  /** A new session on one prepared database, on a free copy or a new one. */
  async open(database: string): Promise<SqlSession> {
    this.assertUsable();
    const prepared = this.prepared.get(database);
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
    const references = [...this.#references.values()];
    this.#references.clear();
    await Promise.all(
      references.map((reference) => reference.then((session) => session.close()).catch(() => {})),
    );
    const pending = this.#backend;
    this.#backend = undefined;
    const backend = await pending?.catch(() => undefined);
    if (!backend) return;
    if (backend.shared && !this.failure) await this.dropMade(backend).catch(() => {});
    await backend.pool.end().catch(() => {});
    await backend.ownServer?.stop();
  }

  /** Starts the engine's own server, with the loaded data of `preload` when given. */
  private async startOwnServer(): Promise<NonNullable<Backend['ownServer']>> {
    // A dump that cannot be read starts the server without it: `prepare` reports the error.
    const dump = await Promise.resolve(this.options.preload).catch(() => undefined);
    if (!dump || process.env.INTERCODE_SQL_DATA_CACHE === 'off') return this.startServer({});
    const preload: Preload = {
      key: `${dump.sha256}-${sourceFingerprint(SQL_CODE, true)}-${this.dataSettings}`,
      load: async (server) => {
        const engine = this.onServer(server as NonNullable<Backend['server']>);
        try {
          await engine.prepare(dump);
        } finally {
          await engine.close();
        }
      },
      report: (outcome) => {
        this.#dataCache = outcome;
        debugLine(
          `${this.title} data cache: ${outcome.source}${outcome.reason ? ` (${outcome.reason})` : ''}, ${outcome.entry}`,
        );
      },
    };
    return this.startServer({ preload });
  }

  /** Names of the prepared databases, as the dumps spell them. */
  databases(): string[] {
    return this.prepared.names();
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

  /**
   * The name of a dump database's template on the server, the same in every process (a URL server
   * keeps templates for the next one): `ic_t<dump hash>c<converter version>_<database>`.
   */
  protected templateName(dump: DumpModel, database: DumpDatabase, converter: string): string {
    const key = `t${dump.sha256.slice(0, 8)}c${converter}`;
    return objectName(['ic', key, database.name.toLowerCase()], this.naming.databaseLength);
  }

  /** What every session of the engine needs from it. */
  protected sessionHost(backend: Backend): ServerSessionHost<Slot> {
    return {
      countLimit: this.options.countLimit ?? 100_000,
      killGraceMs: this.options.killGraceMs ?? 2_000,
      failure: () => this.failure,
      health: () => this.health(backend),
      interrupt: (backendId, how) => this.interrupt(backend, backendId, how),
      release: (session, slot) => {
        this.sessions.delete(session as Session);
        this.prepared.find(session.database)?.free.push(slot);
      },
      reference: (slot, open) => {
        let reference = this.#references.get(slot);
        if (!reference) {
          reference = open();
          this.#references.set(slot, reference);
          reference.catch(() => this.#references.delete(slot));
        }
        return reference;
      },
    };
  }

  /** Starts or reaches the server, checks the account of a URL, and reaps what dead owners left. */
  private async connect(): Promise<Backend> {
    const { url, server: given } = this.options;
    const ownServer = url || given ? undefined : await this.startOwnServer();
    const server = (ownServer ?? given) as NonNullable<Backend['server']> | undefined;
    const endpoint = this.endpointOf(server, url ?? '');
    const pool = this.openPool(endpoint);
    try {
      const backend = await this.inspect(pool, endpoint, {
        ...(ownServer ? { ownServer } : {}),
        ...(server ? { server } : {}),
        shared: !ownServer,
      });
      server?.onExit((exit) => {
        this.failure ??= new SqlEngineError(
          'SQL_ENGINE_FAILED',
          `the ${server.title} server exited (${describeExit(exit)}): ${server.logTail() || 'no log'}`,
        );
      });
      if (url) await this.checkAccount(backend);
      await this.setUp(backend);
      if (backend.shared && this.isLocal(endpoint)) await this.reapDeadOwners(backend);
      return backend;
    } catch (error) {
      await pool.end().catch(() => {});
      await ownServer?.stop();
      if (error instanceof SqlEngineError) throw error;
      throw new SqlEngineError(
        'SQL_ENGINE_UNAVAILABLE',
        `cannot reach the ${this.title} server: ${errorReason(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  /**
   * A new session copy. The first copy of a database on a server of intercode's own gets the
   * dump's name (`concert_singer`, what the agent sees), the next ones `concert_singer__2`, …; on a
   * shared server every copy is `ic_<owner>_<engine>_<database>_<n>`, so the user's databases are
   * never touched, and is recorded to be dropped at close.
   */
  private async newSlot(backend: Backend, prepared: Prepared): Promise<Slot> {
    const { databaseLength, accountLength, reserved, ownPrefix } = this.naming;
    prepared.slots += 1;
    const index = prepared.slots;
    const lower = prepared.name.toLowerCase();
    const database = backend.shared
      ? objectName(['ic', this.#tag, lower, String(index)], databaseLength)
      : index === 1 && !reserved.has(lower) && !lower.startsWith(ownPrefix)
        ? lower
        : objectName([lower, '', String(index)], databaseLength);
    this.#accounts += 1;
    const account = backend.shared
      ? objectName(['ic', this.#tag, `u${this.#accounts}`], accountLength)
      : `ic_s${this.#accounts}`;
    const reader = backend.shared
      ? objectName(['ic', this.#tag, `r${this.#accounts}`], accountLength)
      : `ic_r${this.#accounts}`;
    return this.makeSlot(backend, prepared, database, account, reader);
  }

  /** Records a copy and its account (as `dropAccount` names it) made on a shared server. */
  protected made(backend: Backend, database: string, account: string): void {
    if (!backend.shared) return;
    this.#made.databases.add(database);
    this.#made.accounts.add(account);
  }

  /** Drops this engine's session copies and accounts (on a shared server). */
  private async dropMade(backend: Backend): Promise<void> {
    for (const database of this.#made.databases) await this.dropDatabase(backend, database);
    for (const account of this.#made.accounts) await this.dropAccount(backend, account);
  }

  /** Drops session copies and accounts left on a local shared server by intercode processes that died. */
  private async reapDeadOwners(backend: Backend): Promise<void> {
    for (const name of await this.listDatabases(backend)) {
      if (deadOwner(name)) await this.dropDatabase(backend, name);
    }
    for (const { name, account } of await this.listAccounts(backend)) {
      if (deadOwner(name)) await this.dropAccount(backend, account);
    }
  }
}
