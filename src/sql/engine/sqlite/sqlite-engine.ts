import { cacheDir } from '../../../core/host/cache-dir.js';
import type { DumpModel } from '../../dump/dump-model.js';
import { PreparedDatabases } from '../prepared-databases.js';
import type { SqlEngine, SqlOpenOptions, SqlSession } from '../sql-engine.js';
import { SqlEngineError } from '../sql-engine-error.js';
import { type SqlitePristineSchema, sqlitePristineSchema } from './sqlite-catalogue.js';
import { SqliteHost } from './sqlite-host.js';
import { ensurePristineFiles } from './sqlite-pristine.js';
import { SqliteProcess } from './sqlite-process.js';
import { SqliteSession, type SqliteSessionLimits } from './sqlite-session.js';

/** Options of the SQLite engine. */
export interface SqliteEngineOptions {
  /** Root of the cache of built databases (default: the user cache, `cacheDir()`). */
  readonly cacheDir?: string;
  /** Memory limit of one session (SQLite heap and JS heap of its process), default 512 MiB. */
  readonly memoryBytes?: number;
  /** Rows counted in all before counting stops (`totalRowsCapped`), default 100,000. */
  readonly countLimit?: number;
  /** Changing statements kept per session for replay after a timeout, default 10,000. */
  readonly replayLimit?: number;
  /** Time limit of such a replay, default 60 s. */
  readonly replayTimeoutMs?: number;
  /**
   * `"x"` that names no column reads as the string `'x'`, as in SQLite's legacy mode and in MySQL
   * (default true; Spider's gold queries need it). False: SQLite's strict rule, an error.
   */
  readonly doubleQuotedStrings?: boolean;
  /**
   * Session processes started with the engine, ahead of need (default 0): the first hosts take them
   * ready instead of waiting for a process to start (about 100 ms of CPU each), which then happens
   * while the run reads its dataset and prepares its databases. One per environment a run will open
   * (its concurrency); those never taken end with the engine. None is started again once taken.
   */
  readonly spareProcesses?: number;
  /**
   * Replace each spare taken at once, in the background, so that `spareProcesses` stay ready (default
   * false): for sessions that come and go (a server's), each of which would otherwise wait for its
   * process. A run's environments live as long as it does: there a replacement would only cost CPU.
   */
  readonly refillSpares?: boolean;
}

/** The most session processes an engine starts ahead of need. */
export const MAX_SPARE_PROCESSES = 8;

interface Prepared {
  readonly name: string;
  readonly file: string;
  readonly sha256: string;
  /** The dump model of its tables, for MySQL-style introspection (`SHOW TABLES`, `DESCRIBE t`). */
  readonly schema: SqlitePristineSchema;
}

/**
 * The embedded engine (better-sqlite3): each dump database becomes a SQLite file, built once into
 * the cache (see `sqlite-schema.ts` for the type mapping and its limits), and each session runs on an
 * in-memory copy of it in a session process: its own, or one shared with the sessions opened with the
 * same `share` object (see {@link SqliteSession} and {@link SqliteHost}).
 *
 * Dialect: SQLite's, with MySQL's case-insensitive text comparisons imitated by `COLLATE NOCASE` on
 * the dump's character columns. NOCASE folds only ASCII letters, and applies where SQLite picks the
 * column's collation: `=`, `<`, `IN`, `BETWEEN`, `ORDER BY`, `GROUP BY`, `DISTINCT`, `min`/`max`,
 * `UNIQUE` keys and joins on such a column. It does not cover what MySQL's `utf8mb4_general_ci` also
 * does: non-ASCII case and accents (`'é' = 'E'`), trailing blanks (`'a' = 'a '`), comparisons of two
 * literals or expressions with no column (`'a' = 'A'` is false), and functions (`instr`, `replace`).
 * `LIKE` is ASCII case-insensitive in SQLite anyway; `GLOB` is case-sensitive.
 * A double-quoted name that is no column reads as a string (`WHERE name = "Bob"`), as MySQL and
 * SQLite's legacy mode do (option `doubleQuotedStrings`).
 *
 * MySQL's introspection statements (`SHOW TABLES`, `DESCRIBE t`, `SHOW COLUMNS`, `SHOW CREATE TABLE`,
 * `SHOW INDEX`, `SHOW DATABASES`), which the paper's agents use, are answered by a compatibility layer
 * before they reach SQLite (see `answer-mysql-introspection.ts` and `sqlite-catalogue.ts`).
 *
 * Values: INTEGER as `bigint` (always; the integer/real distinction survives, as Python's `int` and
 * `float` did upstream), REAL as `number`, TEXT as `string`, BLOB as `Buffer`, NULL as `null`.
 */
export class SqliteEngine implements SqlEngine {
  readonly id = 'sqlite' as const;
  private readonly prepared = new PreparedDatabases<Prepared>();
  private readonly sessions = new Set<SqliteSession>();
  /** Session processes shared by the sessions opened with the same `share` object. */
  private readonly hosts = new WeakMap<object, SqliteHost>();
  private readonly limits: SqliteSessionLimits;
  private readonly cacheRoot: string | undefined;
  /** Processes started ahead of need, not taken yet (see `spareProcesses`). */
  private readonly spares: Promise<SqliteProcess>[] = [];
  private readonly refillSpares: boolean;
  private closed = false;

  constructor(options: SqliteEngineOptions = {}) {
    this.cacheRoot = options.cacheDir;
    this.limits = {
      memoryBytes: options.memoryBytes ?? 512 * 2 ** 20,
      countLimit: options.countLimit ?? 100_000,
      replayLimit: options.replayLimit ?? 10_000,
      replayTimeoutMs: options.replayTimeoutMs ?? 60_000,
      doubleQuotedStrings: options.doubleQuotedStrings ?? true,
    };
    this.refillSpares = options.refillSpares ?? false;
    const spares = Math.min(MAX_SPARE_PROCESSES, Math.max(0, Math.floor(options.spareProcesses ?? 0)));
    for (let i = 0; i < spares; i++) this.startSpare();
  }

  private startSpare(): void {
    const spare = SqliteProcess.start(this.limits);
    // A spare that did not start is never taken: the host starts its own and reports why.
    spare.catch(() => undefined);
    this.spares.push(spare);
  }

  async prepare(dump: DumpModel): Promise<void> {
    this.assertOpen();
    this.prepared.assertCompatible(dump);
    const files = ensurePristineFiles(this.cacheRoot ?? cacheDir(), dump);
    for (const database of dump.databases) {
      const file = files.get(database.name);
      if (file === undefined) continue;
      this.prepared.add({
        name: database.name,
        file,
        sha256: dump.sha256,
        schema: sqlitePristineSchema(database),
      });
    }
  }

  async open(database: string, options: SqlOpenOptions = {}): Promise<SqlSession> {
    this.assertOpen();
    const prepared = this.prepared.get(database);
    const session = await SqliteSession.open(
      prepared.name,
      prepared.file,
      this.limits,
      this.sessions,
      prepared.schema,
      this.host(options.share),
    );
    if (this.closed) {
      await session.close();
      this.assertOpen();
    }
    this.sessions.add(session);
    return session;
  }

  async close(): Promise<void> {
    this.closed = true;
    const spares = this.spares.splice(0);
    await Promise.all([
      ...[...this.sessions].map((session) => session.close()),
      ...spares.map(async (spare) => {
        const process = await spare.catch(() => undefined);
        process?.kill();
        await process?.finished;
      }),
    ]);
  }

  /** How many processes started ahead of need are not taken yet. */
  get spareProcesses(): number {
    return this.spares.length;
  }

  /**
   * A session process for a host: a spare started ahead of need while one is left (and alive, once
   * started), otherwise a new one.
   */
  private async startProcess(): Promise<SqliteProcess> {
    const spare = this.spares.shift();
    if (spare !== undefined) {
      if (this.refillSpares && !this.closed) this.startSpare();
      const process = await spare.catch(() => undefined);
      if (process?.alive) return process;
    }
    return SqliteProcess.start(this.limits);
  }

  /** The process host of the sessions opened with `share`: a new one without it, or once the last has closed. */
  private host(share: object | undefined): SqliteHost {
    const start = () => this.startProcess();
    if (share === undefined) return new SqliteHost(start);
    let host = this.hosts.get(share);
    if (!host) {
      host = new SqliteHost(start, (closed) => {
        if (this.hosts.get(share) === closed) this.hosts.delete(share);
      });
      this.hosts.set(share, host);
    }
    return host;
  }

  /** Names of the prepared databases, as the dumps spell them. */
  databases(): string[] {
    return this.prepared.names();
  }

  private assertOpen(): void {
    if (this.closed) throw new SqlEngineError('SQL_SESSION_CLOSED', 'the SQLite engine is closed');
  }
}
