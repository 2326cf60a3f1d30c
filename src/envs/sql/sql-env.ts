import type { Action } from '../../core/action.js';
import { toAction } from '../../core/action.js';
import type {
  Env,
  ForkResult,
  Observation,
  ResetInfo,
  ResetOptions,
  Score,
  StepResult,
} from '../../core/env.js';
import { EnvError } from '../../core/errors.js';
import { type Dataset, joinedGold, type Task } from '../../core/task.js';
import type { QueryOutcome, SqlEngine, SqlSession } from '../../sql/engine/sql-engine.js';
import { skipStep, submitStep } from '../control-steps.js';
import { checkForkCount } from '../fork-count.js';
import { pyRowStrs } from '../python-compat/python-repr.js';
import { pickTask } from '../task-picker.js';
import { jsonSafeRows, toPythonRows } from './python-rows.js';
import { renderRows } from './render-rows.js';
import { sqlReward } from './reward/sql-reward.js';
import { schemaHint } from './schema-hint.js';

export interface SqlEnvOptions {
  readonly dataset: Dataset;
  /** A prepared engine (its databases loaded); shared by every env of a run. */
  readonly engine: SqlEngine;
  /** Time limit of one query; the query is cancelled for real. */
  readonly actionTimeoutMs?: number;
  /** Rows kept from one result (for the observation and the reward); the rest is counted only. */
  readonly maxRows?: number;
  /** Rows written into the observation text. */
  readonly shownRows?: number;
  /** Add the schema hint (tables and columns) to the reset observation, as the paper's Table 5. */
  readonly handicap?: boolean;
}

interface GoldResult {
  /** `str(row)` of every gold row; [] when the gold failed, as upstream. */
  readonly rows: string[];
  readonly corrupt: boolean;
  readonly error?: string;
  /** The gold query's outcome, its rows cut to those an observation shows (`goldOutput` is made of it). */
  readonly outcome?: QueryOutcome;
  /** The gold's output as the observation of its query would be: made once, at the first score. */
  output?: string;
}

function databaseOf(task: Task): string {
  const db = task.meta.db;
  if (typeof db !== 'string' || db === '') {
    throw new EnvError('ENV_TASK_NOT_FOUND', `task ${task.id} names no database (field "db")`);
  }
  return db;
}

/** The task lists its database's tables: its reset info has a schema hint. */
function hasTables(task: Task): boolean {
  const tables = task.meta.db_tables;
  return typeof tables === 'object' && tables !== null && Object.keys(tables).length > 0;
}

function goldQuery(task: Task): string | undefined {
  return joinedGold(task, ' ');
}

/**
 * The SQL environment (Spider, WikiSQL): each action runs one statement on the task's database,
 * which starts pristine every episode; the reward compares the last result with the gold query's
 * result on a pristine database: multiset IoU of the rows scaled by Kendall tau-b, as upstream.
 */
export class SqlEnv implements Env {
  readonly #options: SqlEnvOptions;
  readonly #agentSessions = new Map<string, SqlSession>();
  readonly #dirty = new Set<string>();
  /** The episode's gold result; pending while an `ordered` session runs it (see `reset`). */
  #gold: Promise<GoldResult> | undefined;
  #task: Task | undefined;
  #last: QueryOutcome | undefined;
  #closed = false;

  constructor(options: SqlEnvOptions) {
    this.#options = options;
  }

  async #session(pool: Map<string, SqlSession>, database: string): Promise<SqlSession> {
    let session = pool.get(database);
    if (!session) {
      session = await this.#options.engine.open(database, { share: this });
      // close() ran while the database opened (a caller that gave up on the reset): do not keep it.
      if (this.#closed) {
        await session.close();
        throw new EnvError('ENV_CLOSED', 'the environment was closed during its reset');
      }
      pool.set(database, session);
    }
    return session;
  }

  /**
   * The gold's result, run on the agent's database copy while it is pristine (right after its reset,
   * before the agent acts): the same copy, the same statistics and so the same plan, so a gold whose
   * order is not fully determined (ties under `ORDER BY … LIMIT`) picks the same rows the agent's
   * identical query would, as upstream's shared connection did. It runs on the session's reference
   * connection (`SqlSession.referenceQuery`: another connection and account, read-only), so the
   * agent's own connection can observe nothing of it (`FOUND_ROWS()`, session status counters,
   * per-transaction statistics), and the copy stays pristine.
   */
  async #goldResult(task: Task, session: SqlSession): Promise<GoldResult> {
    const query = goldQuery(task);
    if (query === undefined) return { rows: [], corrupt: true, error: 'the task has no gold query' };
    const outcome = await session.referenceQuery(query, {
      timeoutMs: 60_000,
      maxRows: Number.POSITIVE_INFINITY,
    });
    if (outcome.kind === 'rows') {
      const rows = pyRowStrs(toPythonRows(this.#options.engine.id, outcome));
      const shown = { ...outcome, rows: outcome.rows.slice(0, this.#shownRows) };
      return { rows, corrupt: false, outcome: shown };
    }
    return outcome.kind === 'error'
      ? { rows: [], corrupt: true, error: outcome.message, outcome }
      : { rows: [], corrupt: false, outcome };
  }

  async reset(options: ResetOptions = {}): Promise<{ observation: Observation; info: ResetInfo }> {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'the environment is closed');
    const started = performance.now();
    const task = pickTask(this.#options.dataset.tasks, options);
    const database = databaseOf(task);
    const session = await this.#session(this.#agentSessions, database);
    let resetting: Promise<void> | undefined;
    if (this.#dirty.has(database)) {
      // After reads only, a server engine's reset concerns the session's connection alone: the gold,
      // on the copy's reference connection, runs meanwhile.
      const overlap = session.referenceDuringReset?.() === true;
      resetting = session.reset();
      if (!overlap) await resetting;
    }
    const gold = this.#goldResult(task, session);
    // Settled or awaited later; a failure surfaces where it is awaited (the score).
    gold.catch(() => undefined);
    if (resetting) {
      await resetting;
      this.#dirty.delete(database);
    }
    // An ordered session runs the gold before any query made after it: the agent's first query can
    // leave with it (one message to SQLite's session process), so the reset does not wait for it.
    if (!session.ordered) await gold;
    this.#gold = gold;
    this.#task = task;
    this.#last = undefined;
    const handicapHint = this.#options.handicap ? schemaHint(task) : undefined;
    const text = handicapHint ? `${task.query}\n\n${handicapHint}` : task.query;
    const info: ResetInfo = {
      taskId: task.id,
      index: task.index,
      query: task.query,
      gold: task.gold,
      group: task.group,
      database,
    };
    if (hasTables(task)) {
      // Written when first read (most runs never read it), then kept.
      let hint: string | undefined;
      Object.defineProperty(info, 'schemaHint', {
        get: () => {
          hint ??= schemaHint(task);
          return hint;
        },
        enumerable: true,
        configurable: true,
      });
    }
    return { observation: { text, durationMs: performance.now() - started }, info };
  }

  #require(): Task {
    if (this.#closed) throw new EnvError('ENV_CLOSED', 'the environment is closed');
    if (!this.#task) throw new EnvError('ENV_RESET_NEEDED', 'call reset() before step()');
    return this.#task;
  }

  async step(input: Action | string): Promise<StepResult> {
    const task = this.#require();
    const action = toAction(input);
    if (action.type === 'skip') return skipStep();
    if (action.type === 'submit') return submitStep(() => this.score(), 'submitted');
    const database = databaseOf(task);
    const session = await this.#session(this.#agentSessions, database);
    this.#dirty.add(database);
    const outcome = await session.query(action.code, {
      timeoutMs: this.#options.actionTimeoutMs ?? 10_000,
      maxRows: this.#options.maxRows ?? 10_000,
    });
    this.#last = outcome;
    return {
      observation: this.#observe(outcome),
      reward: 0,
      terminated: false,
      truncated: false,
      info: {
        admissible: outcome.kind !== 'error',
        ...(outcome.kind === 'error' && outcome.code ? { errorCode: outcome.code } : {}),
      },
    };
  }

  get #shownRows(): number {
    return this.#options.shownRows ?? 100;
  }

  /** The observation text of a query's outcome. */
  #observationText(outcome: QueryOutcome): string {
    if (outcome.kind === 'error') return `Error executing query: ${outcome.message}\n`;
    if (outcome.kind === 'ok') {
      const affected = outcome.affectedRows === undefined ? '' : ` (${outcome.affectedRows} rows affected)`;
      return `Statement executed${affected}; it returned no result set.\n`;
    }
    const { columns, rows, totalRows, totalRowsCapped } = outcome;
    return renderRows(columns, rows, totalRows, this.#shownRows, totalRowsCapped === true);
  }

  #observe(outcome: QueryOutcome): Observation {
    const text = this.#observationText(outcome);
    if (outcome.kind === 'error') {
      return { text, durationMs: outcome.durationMs, ...(outcome.timedOut ? { timedOut: true } : {}) };
    }
    if (outcome.kind === 'ok') return { text, durationMs: outcome.durationMs };
    const observation: Observation = {
      text,
      columns: outcome.columns,
      durationMs: outcome.durationMs,
      ...(outcome.truncated ? { truncated: { originalRows: outcome.totalRows } } : {}),
    };
    // The JSON-safe copy of the rows is made when first read (a run's loop reads only the text).
    let rows: unknown[][] | undefined;
    Object.defineProperty(observation, 'rows', {
      get: () => {
        rows ??= jsonSafeRows(outcome.rows);
        return rows;
      },
      enumerable: true,
      configurable: true,
    });
    return observation;
  }

  async score(): Promise<Score> {
    this.#require();
    const gold = await this.#gold!;
    const last = this.#last;
    const agentRows = last?.kind === 'rows' ? pyRowStrs(toPythonRows(this.#options.engine.id, last)) : null;
    const reward = sqlReward(agentRows, gold.rows);
    if (gold.output === undefined && gold.outcome) gold.output = this.#observationText(gold.outcome);
    const score: Score = {
      value: reward.value,
      parts: { ...reward.parts },
      details: {
        ...reward.details,
        ...(gold.output !== undefined ? { goldOutput: gold.output } : {}),
        ...(gold.error ? { goldError: gold.error } : {}),
      },
    };
    return gold.corrupt ? { ...score, goldCorrupt: true } : score;
  }

  /**
   * `count` copies of the episode: each a new environment on a copy of the task's database as the
   * agent left it (data, schema, an open transaction, temporary tables, session settings), with the
   * same task, gold result and last result, so its score is this one's until it acts. On SQLite the
   * copies live in the session process of this environment (copying a Spider database takes well
   * under a millisecond); the server engines cannot fork (`ENV_FORK_UNSUPPORTED`).
   */
  async fork(count: number): Promise<ForkResult> {
    const task = this.#require();
    checkForkCount(count, 256);
    await this.#gold;
    const database = databaseOf(task);
    const session = await this.#session(this.#agentSessions, database);
    if (!session.fork) {
      throw new EnvError(
        'ENV_FORK_UNSUPPORTED',
        `the ${this.#options.engine.id} engine cannot copy a session: fork needs --engine sqlite`,
      );
    }
    const copies = await Promise.allSettled(Array.from({ length: count }, () => session.fork!()));
    const failure = copies.find((copy) => copy.status === 'rejected');
    if (failure) {
      await Promise.all(copies.map((copy) => (copy.status === 'fulfilled' ? copy.value.close() : undefined)));
      throw failure.reason;
    }
    const envs = copies.map((copy) => {
      const env = new SqlEnv(this.#options);
      env.#agentSessions.set(database, (copy as PromiseFulfilledResult<SqlSession>).value);
      if (this.#dirty.has(database)) env.#dirty.add(database);
      env.#gold = this.#gold;
      env.#task = task;
      env.#last = this.#last;
      return env;
    });
    return { envs, notCopied: [] };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const sessions = [...this.#agentSessions.values()];
    this.#agentSessions.clear();
    await Promise.all(sessions.map((session) => session.close()));
  }
}
