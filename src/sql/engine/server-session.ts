import type { EventEmitter } from 'node:events';
import type { SqlStatement } from '../dump/split-statements.js';
import type { SqlDialect } from '../dump/sql-dialect.js';
import { copyNameMask } from './copy-name-mask.js';
import { qualifiedWithCopy } from './qualified-with-copy.js';
import { refusedOutcome, timedOutOutcome } from './query-outcomes.js';
import { singleStatement } from './single-statement.js';
import { QUERY_ERROR, type QueryOptions, type QueryOutcome, type SqlSession } from './sql-engine.js';
import { SqlEngineError, sessionFailure } from './sql-engine-error.js';

/**
 * How the engine stops a session's statement, from an administrator connection: `cancel` the
 * statement (`KILL QUERY`, `pg_cancel_backend`) or `end` its connection (`KILL CONNECTION`,
 * `pg_terminate_backend`).
 */
export type Interruption = 'cancel' | 'end';

/** What a server session needs from its engine. */
export interface ServerSessionHost<Slot> {
  /** Rows counted in all before counting stops (`totalRowsCapped`). */
  readonly countLimit: number;
  /** Time between `cancel` and `end` when a statement past its limit does not stop. */
  readonly killGraceMs: number;
  /** The engine's failure (server gone), once there is one. */
  failure(): SqlEngineError | undefined;
  /** Undefined when the server still answers, else the engine's failure. */
  health(): Promise<SqlEngineError | undefined>;
  /** Stops the statement of the connection whose server-side id is `backendId`. */
  interrupt(backendId: number, how: Interruption): Promise<void>;
  /** Hands the copy back for the next session. */
  release(session: SqlSession, slot: Slot): void;
  /**
   * The copy's reference connection, opened by `open` on first use and kept with the copy (the
   * next session on it reuses it) until the engine closes.
   */
  reference(slot: Slot, open: () => Promise<SqlSession>): Promise<SqlSession>;
}

/** What the guard of a dialect says of a statement before it runs. */
export interface StatementVerdict {
  /** Why the statement is refused (it would reach beyond the session's database). */
  readonly refusal?: string;
  /** The database a `USE` statement names. */
  readonly use?: string;
}

/** When a query started, and the time since. */
export interface QueryClock {
  /** `performance.now()` at the start. */
  readonly started: number;
  elapsed(): number;
}

/** What a session tells the agent about its database after its connection had to be made anew. */
export interface RenewalNotes {
  /** Appended to the time-out message when the statement did not stop and its connection was closed. */
  readonly timeout: string;
  /** Ends the message of a lost connection. */
  readonly lost: string;
}

/** An error's text on one line (a MySQL error's own message when it has one). */
export function oneLineMessage(error: Error): string {
  const { sqlMessage } = error as { sqlMessage?: string };
  return (sqlMessage ?? error.message).replace(/\s*\n\s*/g, ' ');
}

/**
 * What the MariaDB and PostgreSQL sessions share: one connection to the session's own database
 * copy as the copy's own account, watched for loss; a query checked before it runs (exactly one
 * statement, the dialect's guard, `USE` of the session's database only); unexpected failures
 * turned into the engine's error (the server's own when it is gone); a lost connection made anew
 * on a pristine copy, the agent told so; a reset that starts over on a new connection when the
 * engine's steps fail while the server lives; and a close that hands the copy back.
 *
 * Each engine supplies how its connection is made, started, ended and discarded, how a verdict
 * becomes a run of the statement, and what its reset does.
 */
export abstract class ServerSession<
  Connection extends EventEmitter,
  Slot extends { readonly database: string },
  Host extends ServerSessionHost<Slot>,
  Verdict extends StatementVerdict,
> implements SqlSession
{
  #connection: Connection | undefined;
  #backendId = 0;
  /** The connection ended or failed outside a query (noticed at the next call). */
  #lost: Error | undefined;
  /** Called when the connection fails during a request. */
  #onLost: ((error: Error) => void) | undefined;
  #closed = false;
  /** See `asOwn` (a session keeps its copy and its accounts). */
  #mask: ((text: string) => string) | undefined;

  protected constructor(
    readonly database: string,
    protected readonly slot: Slot,
    protected readonly host: Host,
  ) {}

  /** `MySQL`, `PostgreSQL`: for messages. */
  protected abstract readonly title: string;
  protected abstract readonly dialect: Exclude<SqlDialect, 'sqlite'>;
  /** The session's accounts on the server: its own and its reference connection's. */
  protected abstract accounts(): readonly string[];
  protected abstract readonly renewalNotes: RenewalNotes;
  /** The dialect's verdict on a statement. */
  protected abstract readonly check: (statement: SqlStatement) => Verdict;

  /** A new, unconnected connection to the copy, as the copy's account. */
  protected abstract createConnection(): Connection;
  protected abstract openConnection(connection: Connection): Promise<void>;
  /** The server's id of the connection (what `interrupt` names). */
  protected abstract backendIdOf(connection: Connection): number;
  /** Ends a connection for good (waits at most a second). */
  protected abstract closeConnection(connection: Connection): Promise<void>;
  /** Drops a connection that failed, without waiting. */
  protected abstract discardConnection(connection: Connection): void;
  /** The session's settings or transaction on a new connection. */
  protected abstract started(): Promise<void>;
  /** Runs a statement the guard let through. */
  protected abstract execute(
    statement: SqlStatement,
    verdict: Verdict,
    options: QueryOptions,
    clock: QueryClock,
  ): Promise<QueryOutcome>;
  /** The engine's reset on a live connection (throws when it fails). */
  protected abstract renew(): Promise<void>;
  /**
   * A session on the same copy as the copy's reader account (rights to read it only, a connection
   * that never holds a transaction open between statements), for `referenceQuery`.
   */
  protected abstract openReference(): Promise<SqlSession>;

  /**
   * Nothing the session ran since its reset can have changed the copy for other connections (see
   * `SqlSession.referenceDuringReset`).
   */
  protected abstract copyUnchanged(): boolean;

  /** Before a new connection replaces a lost one: makes the copy pristine if the engine must. */
  protected async renewCopy(): Promise<void> {}
  /** After a new connection replaced a lost one, on a pristine copy. */
  protected recovered(): void {}
  /** At close, before the connection ends. */
  protected closing(): void {}

  async query(sql: string, options: QueryOptions): Promise<QueryOutcome> {
    this.assertUsable();
    try {
      return await this.attempt(sql, options);
    } catch (error) {
      throw await this.infrastructure(error);
    }
  }

  /**
   * The statement on the reference connection: another connection to the same copy, as another
   * account that may only read it, so that the session's connection (and its account) can observe
   * nothing of it: not `FOUND_ROWS()`, session status counters, per-transaction statistics, the
   * process list. Opened on first use and kept with the copy, for the next sessions on it too.
   */
  async referenceQuery(sql: string, options: QueryOptions): Promise<QueryOutcome> {
    this.assertUsable();
    let reference: SqlSession;
    try {
      reference = await this.host.reference(this.slot, () => this.openReference());
    } catch (error) {
      throw await this.infrastructure(error);
    }
    return reference.query(sql, options);
  }

  /** A live connection (no new one, so no rebuild of the copy, at the reset) that changed nothing others see. */
  referenceDuringReset(): boolean {
    return this.#connection !== undefined && this.#lost === undefined && this.copyUnchanged();
  }

  async reset(): Promise<void> {
    this.assertUsable();
    try {
      await this.resetNow();
    } catch (error) {
      throw await this.infrastructure(error);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.closing();
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection) await this.closeConnection(connection);
    if (!this.host.failure()) this.host.release(this, this.slot);
  }

  /**
   * Server text as the agent would see it on upstream's single database: the copy's name
   * (`voter_1__2`: `Tables_in_voter_1__2`, errors, catalogue values) as the database's own, and the
   * session's accounts as one name (see `copyNameMask`), so an episode prints the same whichever copy
   * served it.
   */
  protected asOwn(text: string): string {
    this.#mask ??= copyNameMask(this.slot.database, this.database.toLowerCase(), this.accounts());
    return this.#mask(text);
  }

  /** The statement's text, a name qualified with the database's own name meaning this copy (see `qualifiedWithCopy`). */
  protected forCopy(statement: SqlStatement): string {
    return qualifiedWithCopy(statement, this.database, this.slot.database, this.dialect) ?? statement.text;
  }

  /** The live connection (undefined before the first and after a loss). */
  protected get connection(): Connection | undefined {
    return this.#connection;
  }

  protected get backendId(): number {
    return this.#backendId;
  }

  /** The loss of the connection, noticed outside a request, if any. */
  protected get lost(): Error | undefined {
    return this.#lost;
  }

  /** Who hears of a loss of the connection during a request (a streaming statement sets its own). */
  protected watchLoss(listener: ((error: Error) => void) | undefined): void {
    this.#onLost = listener;
  }

  /** Connects to the copy and starts the session on it. */
  protected async connect(): Promise<void> {
    const connection = this.createConnection();
    const lost = (error: Error) => {
      if (this.#connection !== connection) return;
      this.#lost ??= error;
      this.#onLost?.(error);
    };
    connection.on('error', lost);
    connection.on('end', () => lost(new Error('the server closed the connection')));
    this.#connection = connection;
    try {
      await this.openConnection(connection);
    } catch (error) {
      this.#connection = undefined;
      throw error;
    }
    this.#lost = undefined;
    this.#backendId = this.backendIdOf(connection);
    await this.started();
  }

  /** One request on the live connection; rejected with the loss when the connection fails meanwhile. */
  protected request<T>(start: (connection: Connection) => Promise<T>): Promise<T> {
    const connection = this.#connection;
    if (!connection || this.#lost) return Promise.reject(this.#lost ?? new Error('not connected'));
    return new Promise((resolve, reject) => {
      this.#onLost = reject;
      start(connection).then(
        (result) => {
          this.#onLost = undefined;
          resolve(result);
        },
        (error: unknown) => {
          this.#onLost = undefined;
          reject(error);
        },
      );
    });
  }

  /** A new connection on a pristine copy (the old one failed while the server lives). */
  protected async recover(): Promise<void> {
    const failure = await this.host.health();
    if (failure) throw failure;
    const old = this.#connection;
    this.#connection = undefined;
    if (old) this.discardConnection(old);
    await this.renewCopy();
    await this.connect();
    this.recovered();
  }

  /** The connection died during a statement: the server is gone (throw) or the session starts over. */
  protected async afterLoss(
    lost: Error,
    timedOut: boolean,
    options: QueryOptions,
    elapsed: () => number,
  ): Promise<QueryOutcome> {
    this.#lost ??= lost;
    const failure = await this.host.health();
    if (failure) throw failure;
    await this.recover();
    const notes = this.renewalNotes;
    if (timedOut) return timedOutOutcome(options.timeoutMs, elapsed(), notes.timeout);
    return {
      kind: 'error',
      message: `the connection to the server was lost (${oneLineMessage(lost)}); ${notes.lost}`,
      code: QUERY_ERROR.crashed,
      durationMs: elapsed(),
    };
  }

  private async attempt(sql: string, options: QueryOptions): Promise<QueryOutcome> {
    const started = performance.now();
    const clock: QueryClock = { started, elapsed: () => performance.now() - started };
    this.assertUsable();
    if (this.#lost || !this.#connection) await this.recover();
    const single = singleStatement(sql, this.dialect);
    if (!single.ok) return refusedOutcome(single.message, single.code, clock.elapsed());
    const verdict = this.check(single.statement);
    if (verdict.refusal) return refusedOutcome(verdict.refusal, QUERY_ERROR.forbidden, clock.elapsed());
    if (verdict.use !== undefined) {
      const target = verdict.use.toLowerCase();
      if (target !== this.database.toLowerCase() && target !== this.slot.database) {
        return refusedOutcome(
          `USE ${verdict.use} is not allowed: this session works on database ${this.database} only`,
          QUERY_ERROR.forbidden,
          clock.elapsed(),
        );
      }
    }
    return this.execute(single.statement, verdict, options, clock);
  }

  private async resetNow(): Promise<void> {
    if (this.#lost || !this.#connection) {
      await this.recover();
      return;
    }
    try {
      await this.renew();
    } catch (error) {
      const failure = await this.host.health();
      if (failure) throw failure;
      if (error instanceof SqlEngineError) throw error;
      await this.recover();
    }
  }

  /** An unexpected failure as the engine's error: the server's failure when it is gone. */
  private infrastructure(error: unknown): Promise<SqlEngineError> {
    return sessionFailure(error, () => this.host.health(), `the ${this.title} session on ${this.database}`);
  }

  private assertUsable(): void {
    if (this.#closed) {
      throw new SqlEngineError(
        'SQL_SESSION_CLOSED',
        `the ${this.title} session on ${this.database} is closed`,
      );
    }
    const failure = this.host.failure();
    if (failure) throw failure;
  }
}
