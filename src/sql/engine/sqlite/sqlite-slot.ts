import { SqlEngineError } from '../sql-engine-error.js';
import type { SqliteChildReply } from './sqlite-child-protocol.js';
import type { SqliteHost } from './sqlite-host.js';
import { type SqliteProcess, SqliteProcessExit } from './sqlite-process.js';
import { replyWithin } from './sqlite-reply.js';

/** What a slot needs of the session's settings. */
export interface SqliteSlotLimits {
  /** Statements that changed the database kept for replay after a restart; past it a restart starts pristine. */
  readonly replayLimit: number;
  /** Time limit of that replay. */
  readonly replayTimeoutMs: number;
}

/** Times a request is sent again after another session's statement had the shared process killed. */
const MAX_COLLATERAL_RETRIES = 3;

/** Attempts to open a slot in a new process (each may be cut short by another session). */
const MAX_OPEN_ATTEMPTS = 4;

/** The request never ran: the process ended for a statement of another session (it may be sent again). */
function collateral(error: unknown): boolean {
  return error instanceof SqliteProcessExit && error.collateral;
}

/** The slot's process is gone and could not be restarted. */
function failed(database: string, cause: unknown): SqlEngineError {
  if (cause instanceof SqlEngineError) return cause;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new SqlEngineError('SQL_ENGINE_FAILED', `SQLite session on ${database} failed: ${reason}`, {
    cause,
  });
}

/** Where a statement went: its reply, `timeout` (the process was killed), or `crashed` (it ended the process). */
export type SlotReply = { reply: SqliteChildReply } | { crashed: string } | 'timeout';

/**
 * One database of a session in a slot of a `SqliteHost`'s process, and what it takes to keep its
 * state across process restarts: the statements since the last reset that changed the database or
 * the transaction state, replayed in order in each new process (past `replayLimit` of them, or when
 * the replay fails, the slot restarts pristine). A reset is folded into the next request, and
 * skipped when nothing since the last one could have changed the database.
 */
export class SqliteSlot {
  /** The process whose slot holds this state. */
  private openedIn: SqliteProcess | undefined;
  private opening: { process: SqliteProcess; done: Promise<void> } | undefined;
  private changes: string[] = [];
  private changesDropped = false;
  private resetPending = false;
  /** The database or the connection may differ from a fresh copy of the pristine image. */
  private touched = false;
  private closed = false;
  /** Settles when the last `send` made has handed its request to the process. */
  private sendOrder: Promise<void> = Promise.resolve();
  private readonly slot: number;

  constructor(
    private readonly database: string,
    private readonly file: string,
    private readonly limits: SqliteSlotLimits,
    private readonly host: SqliteHost,
  ) {
    this.slot = host.acquire();
  }

  /**
   * One statement (with a pending reset folded in). Calls may overlap: they reach the process in
   * the order they were made (see `SqlSession.ordered`). A request that waited behind another
   * slot's killed statement is sent again to the next process.
   */
  async send(
    sql: string,
    maxRows: number,
    countLimit: number,
    deadline: number,
    reference: boolean,
  ): Promise<SlotReply> {
    // The time left when the call is made; it runs from the request's turn in the process, so
    // waiting for a new process (after another statement's time-out) or for the gold is not counted.
    const limitMs = deadline - performance.now();
    const before = this.sendOrder;
    let sent = (): void => {};
    this.sendOrder = new Promise((resolve) => {
      sent = resolve;
    });
    try {
      await before;
      for (let retries = 0; ; ) {
        const process = await this.ready();
        const reset = this.resetPending;
        this.resetPending = false;
        const request = {
          op: 'query',
          slot: this.slot,
          sql,
          maxRows,
          countLimit,
          ...(reference ? { reference } : {}),
          ...(reset ? { reset } : {}),
        } as const;
        // A reference statement (the episode's gold) waits for the agent's query to leave with it.
        const pending = replyWithin(process.send(request, reference), limitMs);
        sent();
        const result = await pending;
        if (this.closed) throw this.closedError();
        if (result === 'timeout') {
          this.host.kill(process);
          return 'timeout';
        }
        if ('reply' in result) return result;
        if (collateral(result.error) && retries++ < MAX_COLLATERAL_RETRIES) continue;
        await process.finished;
        const reason =
          process.crashReason() ?? (result.error instanceof Error ? result.error.message : 'unknown');
        return { crashed: reason };
      }
    } finally {
      sent();
    }
  }

  /** A statement of the session that changed the database or the transaction state. */
  remember(sql: string): void {
    this.touched = true;
    if (this.changes.length < this.limits.replayLimit) this.changes.push(sql);
    else this.changesDropped = true;
  }

  /** Back to pristine: folded into the next request, or nothing when only reading statements ran. */
  async reset(): Promise<void> {
    if (this.closed) throw this.closedError();
    this.changes = [];
    this.changesDropped = false;
    if (this.touched) this.resetPending = true;
    this.touched = false;
    await this.ready();
  }

  /**
   * A copy in a new slot of the same process: the database is copied as it is (`serialize`), and the
   * session settings are set again; inside a transaction or with temporary objects (which a copy of
   * the main database does not hold), the copy is the pristine database with the changes replayed.
   * Either way the copy keeps the replay list, so a restart of the process brings it back too.
   */
  async fork(): Promise<SqliteSlot> {
    const process = await this.ready();
    if (this.closed) throw this.closedError();
    const copy = new SqliteSlot(this.database, this.file, this.limits, this.host);
    try {
      copy.changes = [...this.changes];
      copy.changesDropped = this.changesDropped;
      copy.touched = this.touched;
      if (!this.resetPending && this.touched) {
        const reply = await process.request({ op: 'copy', slot: copy.slot, from: this.slot });
        if (reply.kind === 'ok') {
          copy.openedIn = process;
          const settings = copy.changes.filter((sql) => /^\s*pragma\b/i.test(sql));
          if (settings.length > 0 && (await copy.replay(process, settings)) !== 'ok') {
            throw new SqlEngineError('SQL_ENGINE_FAILED', 'the session settings could not be copied');
          }
          return copy;
        }
        if (copy.changesDropped) {
          const why = reply.kind === 'error' ? reply.message : 'no copy';
          throw new SqlEngineError(
            'SQL_ENGINE_FAILED',
            `the session on ${this.database} cannot be copied: ${why}, and it ran more changing statements than it keeps for a replay`,
          );
        }
      }
      await copy.ready();
      return copy;
    } catch (error) {
      await copy.close();
      throw failed(this.database, error);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.openedIn = undefined;
    await this.host.release(this.slot);
  }

  closedError(): SqlEngineError {
    return new SqlEngineError('SQL_SESSION_CLOSED', `the SQLite session on ${this.database} is closed`);
  }

  /**
   * The live process with this slot open in it: in a new process, the slot is opened on the
   * pristine image and the changes are replayed.
   */
  async ready(): Promise<SqliteProcess> {
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw this.closedError();
      let process: SqliteProcess;
      try {
        process = await this.host.process();
      } catch (error) {
        throw failed(this.database, error);
      }
      if (this.closed) throw this.closedError();
      if (this.openedIn === process && process.alive) return process;
      if (this.opening?.process !== process) {
        const done = this.openIn(process);
        done.catch(() => undefined);
        this.opening = { process, done };
      }
      try {
        await this.opening.done;
      } catch (error) {
        if (this.opening?.process === process) this.opening = undefined;
        if (this.closed) throw this.closedError();
        if (!(error instanceof SqliteProcessExit) || attempt >= MAX_OPEN_ATTEMPTS) {
          throw failed(this.database, error);
        }
      }
    }
  }

  /** Opens the slot in `process` on the pristine image, then replays the changes. */
  private async openIn(process: SqliteProcess): Promise<void> {
    const replay = this.changesDropped ? [] : [...this.changes];
    if (this.changesDropped) {
      this.changes = [];
      this.changesDropped = false;
    }
    this.resetPending = false;
    this.touched = replay.length > 0;
    const opened = await process.request({ op: 'open', slot: this.slot, file: this.file });
    if (opened.kind === 'error') throw new SqlEngineError('SQL_ENGINE_FAILED', opened.message);
    if (replay.length > 0) {
      const replayed = await this.replay(process, replay);
      if (replayed !== 'ok') {
        this.changes = [];
        this.touched = false;
      }
      if (replayed === 'timeout') throw new SqliteProcessExit('the replay passed its time limit', true);
      if (replayed === 'failed') {
        const reply = await process.request({ op: 'reset', slot: this.slot });
        if (reply.kind === 'error') throw new SqlEngineError('SQL_ENGINE_FAILED', reply.message);
      }
    }
    this.openedIn = process;
  }

  /** Replays statements within the replay time limit (killing the process when it is exceeded). */
  private async replay(process: SqliteProcess, statements: string[]): Promise<'ok' | 'failed' | 'timeout'> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.limits.replayTimeoutMs);
    });
    const reply = await Promise.race([
      process.request({ op: 'replay', slot: this.slot, statements }),
      deadline,
    ]);
    clearTimeout(timer);
    if (reply !== 'timeout') return reply.kind === 'error' ? 'failed' : 'ok';
    this.host.kill(process);
    return 'timeout';
  }
}
