import type { SqliteProcess } from './sqlite-process.js';

/**
 * One SQLite session process shared by sessions, each in its own slot of it (see
 * `sqlite-child.cjs`): the sessions of one environment, one per database it has touched, and the
 * copies of a fork. A session holds its slot from `acquire` to `release`; the process ends with the
 * last release.
 *
 * The sessions stay isolated (each has its own in-memory database and connection). What they share
 * is the process's life: a query past its time limit gets the process killed (better-sqlite3 has no
 * interrupt), and then every session of the host opens its slot again in the next process, replaying
 * its own changes. The host starts that next process at once, in the background.
 */
export class SqliteHost {
  #process: SqliteProcess | undefined;
  #starting: Promise<SqliteProcess> | undefined;
  #users = 0;
  #nextSlot = 1;
  #closed = false;

  constructor(
    /** Starts a process (the engine's: it may hand over one started ahead of need). */
    private readonly startProcess: () => Promise<SqliteProcess>,
    /** Called once, when the last session has released its slot. */
    private readonly onClose: (host: SqliteHost) => void = () => undefined,
  ) {}

  /** A slot for a new session; the host stays up until it is released. */
  acquire(): number {
    if (this.#closed) throw new Error('the SQLite process host is closed');
    this.#users++;
    return this.#nextSlot++;
  }

  /** Gives back a slot (its database is dropped); the last release ends the process. */
  async release(slot: number): Promise<void> {
    if (this.#closed) return;
    this.#process?.post({ op: 'close', slot });
    if (--this.#users > 0) return;
    this.#closed = true;
    this.onClose(this);
    this.#process?.kill();
    this.#process = undefined;
    const starting = this.#starting;
    this.#starting = undefined;
    if (starting) (await starting.catch(() => undefined))?.kill();
  }

  /** The live process, started when there is none (a new process holds no database yet). */
  async process(): Promise<SqliteProcess> {
    if (this.#closed) throw new Error('the SQLite process host is closed');
    const current = this.#process;
    if (current?.alive) return current;
    if (!this.#starting) this.#start();
    const starting = this.#starting as Promise<SqliteProcess>;
    try {
      return await starting;
    } catch (error) {
      if (this.#starting === starting) this.#starting = undefined;
      throw error;
    }
  }

  /** Kills `process` (a statement past its time limit) and starts the next one in the background. */
  kill(process: SqliteProcess): void {
    process.kill();
    if (this.#process !== process) return;
    this.#process = undefined;
    if (!this.#closed && !this.#starting) this.#start();
  }

  #start(): void {
    const starting: Promise<SqliteProcess> = this.startProcess().then((process) => {
      if (this.#closed) process.kill();
      else if (this.#starting === starting) {
        this.#process = process;
        this.#starting = undefined;
      }
      return process;
    });
    starting.catch(() => undefined);
    this.#starting = starting;
  }
}
