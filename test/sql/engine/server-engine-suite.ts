/**
 * The checks every server engine (MySQL/MariaDB, PostgreSQL) passes, on the upstream Spider and
 * WikiSQL databases: loading, every Spider gold query, pristine resets, isolation of concurrent
 * sessions, real time limits, row caps, refused statements, typed values, a server that dies, a
 * server that dies with its owner, and reset timings (printed). Each engine's test file supplies
 * its SQL dialect and starts one server for the whole file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMysqlDump } from '../../../src/sql/dump/parse-mysql-dump.js';
import type {
  QueryOptions,
  QueryOutcome,
  SqlEngine,
  SqlSession,
} from '../../../src/sql/engine/sql-engine.js';
import { reapStaleServers } from '../../../src/sql/server/server-dirs.js';
import {
  MIRROR_PRESENT,
  mirrorDump,
  SPIDER_DUMP,
  SPIDER_TASKS,
  WIKISQL_DUMP,
} from '../../envs/sql/sql-fixtures.js';

/** What a test needs to know of the server behind an engine. */
export interface ServerHandle {
  readonly pid: number;
  readonly dir: string;
}

/** An engine under test, with its dialect. */
export interface ServerEngineCase {
  readonly title: string;
  /** False when the server binaries are missing (the suite is skipped). */
  readonly available: boolean;
  /** `mariadb` or `postgres`: the server kind the crash-owner fixture starts. */
  readonly kind: 'mariadb' | 'postgres';
  /** An engine on a server of its own (started here). */
  start(): Promise<SqlEngine>;
  /** The engine's own server. */
  server(engine: SqlEngine): Promise<ServerHandle>;
  /** An engine on the same server through `--db-url`. */
  viaUrl(engine: SqlEngine): Promise<SqlEngine>;
  /** A table name quoted for the dialect (some are reserved words: `show`). */
  quote(name: string): string;
  readonly sql: {
    /**
     * Statement returning the session's database name on the server (its copy's): with `_` written
     * as `-` where the engine shows a copy's name as the database's own (PostgreSQL's values).
     */
    readonly currentDatabase: string;
    /** Statement that sleeps 100 s. */
    readonly sleep: string;
    /** CPU-bound statement that runs for minutes. */
    readonly spin: string;
    /** Statement returning 10 million rows. */
    readonly tenMillion: string;
    /** Number of tables in the session's database. */
    readonly tableCount: string;
    /** Statements that reach beyond the session's database: each must give an error outcome. */
    readonly forbidden: readonly string[];
    /** An episode that changes everything it can (DDL, DML, an open transaction). */
    readonly vandalism: readonly string[];
    /**
     * A statement that shows the session account's own privileges, and a check of its rows: rights
     * on the session's database only (the server-side barrier behind the refusals).
     */
    readonly privileges: { readonly sql: string; check(rows: unknown[][], database: string): void };
    /** A row with one value of each kind, and the expected JS values and column types. */
    readonly values: {
      readonly sql: string;
      readonly row: readonly unknown[];
      readonly types: readonly string[];
    };
  };
  /** Checks on the Spider gold results (the failures: index and message). */
  goldExpectations(result: GoldResult): void;
  /** Cases of this engine only, on the suite's engine (`open` a session on a prepared database). */
  more?(open: (database: string) => Promise<SqlSession>): void;
}

export interface GoldResult {
  readonly ok: number;
  readonly failures: readonly { readonly index: number; readonly message: string }[];
  readonly classes: Record<string, number>;
}

export const NORMAL: QueryOptions = { timeoutMs: 10_000, maxRows: Number.POSITIVE_INFINITY };

/** Spider's gold queries that failed on upstream's MySQL 8 (corrupt_gold), from the recorded results. */
export const UPSTREAM_FAILING_GOLDS = [
  54, 83, 164, 178, 225, 271, 301, 525, 531, 638, 704, 710, 798, 802, 803, 850, 892, 942, 967,
];

const CRASH_OWNER = fileURLToPath(new URL('./server-crash-owner.js', import.meta.url));

export function rows(outcome: QueryOutcome): unknown[][] {
  if (outcome.kind !== 'rows') throw new Error(`expected rows, got ${JSON.stringify(outcome, jsonSafe)}`);
  return outcome.rows;
}

function jsonSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}

/** Failure messages by class (quoted details cut). */
export function classify(failures: readonly { message: string }[]): Record<string, number> {
  const classes: Record<string, number> = {};
  for (const { message } of failures) {
    const key = message
      .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, '…')
      .replace(/near .* at line \d+/, 'near … at line …')
      .slice(0, 100);
    classes[key] = (classes[key] ?? 0) + 1;
  }
  return classes;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

function timings(values: readonly number[]): string {
  return `p50 ${percentile(values, 50).toFixed(2)} ms, p95 ${percentile(values, 95).toFixed(2)} ms (n=${values.length})`;
}

/** A snapshot of a database: its number of tables and every listed table's rows, sorted. */
async function fingerprint(
  c: ServerEngineCase,
  session: SqlSession,
  tables: readonly string[],
): Promise<string> {
  const parts = [JSON.stringify(rows(await session.query(c.sql.tableCount, NORMAL)), jsonSafe)];
  for (const table of tables) {
    const outcome = await session.query(`SELECT * FROM ${table}`, NORMAL);
    parts.push(
      `${table}:${rows(outcome)
        .map((row) => JSON.stringify(row, jsonSafe))
        .sort()
        .join('|')}`,
    );
  }
  return parts.join('\n');
}

/** Processes still alive in a process group (zombies do not count). */
export function liveInGroup(group: number): number[] {
  const live: number[] = [];
  for (const entry of readdirProc()) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === group && fields[0] !== 'Z' && fields[0] !== 'X') live.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return live;
}

function readdirProc(): string[] {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name));
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await sleep(50);
  }
  return condition();
}

/** A dump with one small database, for the engines that get killed. */
const TINY_DUMP = parseMysqlDump(`
CREATE DATABASE tiny;
USE tiny;
CREATE TABLE t (id int NOT NULL AUTO_INCREMENT, name text, PRIMARY KEY (id)) ENGINE=InnoDB;
INSERT INTO t VALUES (1,'a'),(2,'b');
`);

export function serverEngineSuite(c: ServerEngineCase): void {
  describe.skipIf(!c.available || !MIRROR_PRESENT)(`${c.title} on the upstream databases`, () => {
    let engine: SqlEngine;
    const sessions: SqlSession[] = [];
    const open = async (database: string) => {
      const session = await engine.open(database);
      sessions.push(session);
      return session;
    };
    /** The session's database name on the server (its copy's), whatever the engine shows the agent. */
    const serverName = async (session: SqlSession) =>
      String(rows(await session.query(c.sql.currentDatabase, NORMAL))[0]?.[0]).replaceAll('-', '_');

    beforeAll(async () => {
      let started = performance.now();
      engine = await c.start();
      const startMs = performance.now() - started;
      started = performance.now();
      await engine.prepare(mirrorDump(SPIDER_DUMP));
      await engine.prepare(mirrorDump(WIKISQL_DUMP));
      console.log(
        `${c.title}: server start ${startMs.toFixed(0)} ms, prepare Spider + WikiSQL ${(performance.now() - started).toFixed(0)} ms`,
      );
    });

    afterAll(async () => {
      await Promise.all(sessions.map((session) => session.close()));
      await engine?.close();
    });

    it('loads every table and row of Spider and WikiSQL', async () => {
      for (const dump of [mirrorDump(SPIDER_DUMP), mirrorDump(WIKISQL_DUMP)]) {
        for (const database of dump.databases) {
          const session = await engine.open(database.name);
          const count = rows(await session.query(c.sql.tableCount, NORMAL))[0]?.[0];
          expect(Number(count), database.name).toBe(database.tables.length);
          for (const table of database.tables) {
            const n = rows(
              await session.query(`SELECT count(*) FROM ${c.quote(table.name)}`, NORMAL),
            )[0]?.[0];
            expect(Number(n), `${database.name}.${table.name}`).toBe(table.rows.length);
          }
          await session.close();
        }
      }
    });

    it('runs every Spider gold query', async () => {
      const tasks = JSON.parse(readFileSync(SPIDER_TASKS, 'utf8')) as { db: string; gold: string }[];
      const bySession = new Map<string, SqlSession>();
      const failures: { index: number; message: string }[] = [];
      let ok = 0;
      const started = performance.now();
      for (const [index, task] of tasks.entries()) {
        let session = bySession.get(task.db);
        if (!session) {
          session = await open(task.db);
          bySession.set(task.db, session);
        }
        const outcome = await session.query(task.gold, NORMAL);
        if (outcome.kind === 'rows') ok += 1;
        else failures.push({ index, message: outcome.kind === 'error' ? outcome.message : 'no result set' });
      }
      const classes = classify(failures);
      console.log(
        `${c.title}: ${ok}/${tasks.length} Spider gold queries return rows (${(performance.now() - started).toFixed(0)} ms); failures by class:`,
        classes,
        `indices: ${failures.map((failure) => failure.index).join(', ')}`,
      );
      c.goldExpectations({ ok, failures, classes });
    });

    c.more?.(open);

    it('resets to the pristine database after DDL, DML and an open transaction', async () => {
      const session = await open('concert_singer');
      const tables = ['concert', 'singer', 'singer_in_concert', 'stadium'];
      const pristine = await fingerprint(c, session, tables);
      for (const sql of c.sql.vandalism) {
        const outcome = await session.query(sql, NORMAL);
        expect(outcome.kind, `${sql}: ${JSON.stringify(outcome)}`).not.toBe('error');
      }
      expect(await fingerprint(c, session, tables)).not.toBe(pristine);
      await session.reset();
      expect(await fingerprint(c, session, tables)).toBe(pristine);
      // AUTO_INCREMENT / identity counters are back too: a new row gets the pristine next id.
      const insert = "INSERT INTO stadium (Name, Location) VALUES ('New', 'Here')";
      expect((await session.query(insert, NORMAL)).kind).toBe('ok');
      const first = rows(await session.query('SELECT max(Stadium_ID) FROM stadium', NORMAL));
      await session.reset();
      expect((await session.query(insert, NORMAL)).kind).toBe('ok');
      expect(rows(await session.query('SELECT max(Stadium_ID) FROM stadium', NORMAL))).toEqual(first);
      await session.reset();
      expect(await fingerprint(c, session, tables)).toBe(pristine);
    });

    it('isolates concurrent sessions on the same database', async () => {
      const a = await open('pets_1');
      const b = await open('pets_1');
      const nameA = await serverName(a);
      const nameB = await serverName(b);
      expect(nameA).not.toBe(nameB);
      console.log(
        `${c.title}: two sessions on pets_1 see the databases ${String(nameA)} and ${String(nameB)}`,
      );
      const before = rows(await b.query('SELECT count(*) FROM student', NORMAL));
      expect((await a.query('DELETE FROM has_pet', NORMAL)).kind).toBe('ok');
      expect((await a.query('UPDATE student SET age = 99', NORMAL)).kind).toBe('ok');
      expect((await a.query('DROP TABLE has_pet', NORMAL)).kind).toBe('ok');
      // b neither sees a's changes nor waits for a's locks.
      const quick = { timeoutMs: 2_000, maxRows: 100 };
      expect(rows(await b.query('SELECT count(*) FROM student', quick))).toEqual(before);
      expect(rows(await b.query('SELECT count(*) FROM student WHERE age = 99', quick))).toEqual([[0n]]);
      expect(rows(await b.query('SELECT count(*) FROM has_pet', quick))[0]?.[0]).not.toBe(0n);
      expect((await b.query('UPDATE student SET age = 1', quick)).kind).toBe('ok');
      expect(rows(await a.query('SELECT count(*) FROM student WHERE age = 1', quick))).toEqual([[0n]]);
      await a.reset();
      await b.reset();
      expect(rows(await a.query('SELECT count(*) FROM has_pet', quick))[0]?.[0]).not.toBe(0n);
    });

    it('stops a runaway query at its time limit and keeps the session and its state', async () => {
      const session = await open('singer');
      expect((await session.query("UPDATE singer SET Citizenship = 'Nowhere'", NORMAL)).kind).toBe('ok');
      for (const sql of [c.sql.sleep, c.sql.spin]) {
        const started = performance.now();
        const outcome = await session.query(sql, { timeoutMs: 500, maxRows: 10 });
        const elapsed = performance.now() - started;
        expect(outcome).toMatchObject({ kind: 'error', code: 'TIMEOUT', timedOut: true });
        expect(elapsed).toBeLessThan(2_000);
        console.log(
          `${c.title}: ${sql.slice(0, 40)}… timed out after ${elapsed.toFixed(0)} ms (limit 500 ms)`,
        );
      }
      expect(
        rows(await session.query("SELECT count(*) FROM singer WHERE Citizenship <> 'Nowhere'", NORMAL)),
      ).toEqual([[0n]]);
      expect(rows(await session.query('SELECT 1', NORMAL))).toEqual([[1n]]);
      await session.reset();
    });

    it('caps 10 million rows and records the truncation', async () => {
      const session = await open('singer');
      const started = performance.now();
      const outcome = await session.query(c.sql.tenMillion, { timeoutMs: 30_000, maxRows: 10 });
      const elapsed = performance.now() - started;
      expect(outcome).toMatchObject({
        kind: 'rows',
        totalRows: 100_000,
        truncated: true,
        totalRowsCapped: true,
      });
      expect(rows(outcome)).toHaveLength(10);
      console.log(`${c.title}: 10 million rows capped in ${elapsed.toFixed(0)} ms`);
      expect(rows(await session.query('SELECT 1', NORMAL))).toEqual([[1n]]);
    });

    it('refuses what reaches beyond the session and keeps serving', async () => {
      const session = await open('world_1');
      for (const sql of c.sql.forbidden) {
        const outcome = await session.query(sql, { timeoutMs: 5_000, maxRows: 10 });
        expect(outcome.kind, `${sql}: ${JSON.stringify(outcome, jsonSafe)}`).toBe('error');
        expect(rows(await session.query('SELECT 1', NORMAL)), sql).toEqual([[1n]]);
      }
      await session.reset();
      expect(rows(await session.query('SELECT count(*) FROM city', NORMAL))).toEqual([[4079n]]);
    });

    it("gives the session's account rights on its own database only", async () => {
      const session = await open('world_1');
      const database = await serverName(session);
      c.sql.privileges.check(rows(await session.query(c.sql.privileges.sql, NORMAL)), database);
    });

    it('returns typed values with their column types', async () => {
      const session = await open('singer');
      const outcome = await session.query(c.sql.values.sql, NORMAL);
      expect(rows(outcome)).toEqual([c.sql.values.row]);
      expect(outcome.kind === 'rows' && outcome.columnTypes).toEqual(c.sql.values.types);
    });

    it('resets fast (timings printed)', async () => {
      const session = await open('concert_singer');
      const measure = async (episode: readonly string[], n: number) => {
        const times: number[] = [];
        for (let i = 0; i < n; i++) {
          for (const sql of episode) await session.query(sql, NORMAL);
          const started = performance.now();
          await session.reset();
          times.push(performance.now() - started);
        }
        return times;
      };
      const readOnly = await measure(['SELECT count(*) FROM singer'], 50);
      const dml = await measure(["UPDATE singer SET Name = 'x' WHERE Singer_ID = 1"], 50);
      const ddl = await measure(['CREATE TABLE scratch (a int)'], 20);
      const select: number[] = [];
      for (let i = 0; i < 200; i++) {
        const started = performance.now();
        await session.query('SELECT 1', NORMAL);
        select.push(performance.now() - started);
      }
      console.log(
        `${c.title} reset after a read-only episode: ${timings(readOnly)}; after DML: ${timings(dml)}; after DDL: ${timings(ddl)}; SELECT 1 round trip: ${timings(select)}`,
      );
      expect(percentile(readOnly, 50)).toBeLessThan(50);
      expect(percentile(dml, 50)).toBeLessThan(50);
      expect(percentile(ddl, 50)).toBeLessThan(100);
    });

    it('works on a server given by URL, and cleans up after itself there', async () => {
      const viaUrl = await c.viaUrl(engine);
      try {
        await viaUrl.prepare(mirrorDump(SPIDER_DUMP));
        const session = await viaUrl.open('concert_singer');
        const name = await serverName(session);
        expect(String(name)).toMatch(/^ic_\d+_\d+_\d+_concert_singer_1$/);
        expect(rows(await session.query('SELECT count(*) FROM singer', NORMAL))).toEqual([[6n]]);
        await session.query('DELETE FROM singer_in_concert', NORMAL);
        await session.reset();
        expect(rows(await session.query('SELECT count(*) FROM singer_in_concert', NORMAL))).toEqual([[10n]]);
      } finally {
        await viaUrl.close();
      }
    });
  });

  describe.skipIf(!c.available)(`${c.title} and its server's life`, () => {
    it('fails with SQL_ENGINE_FAILED when the server dies mid-query, without hanging', async () => {
      const engine = await c.start();
      try {
        await engine.prepare(TINY_DUMP);
        const session = await engine.open('tiny');
        const server = await c.server(engine);
        const pending = session.query(c.sql.sleep, { timeoutMs: 60_000, maxRows: 10 });
        await sleep(300);
        process.kill(server.pid, 'SIGKILL');
        const started = performance.now();
        await expect(pending).rejects.toMatchObject({ code: 'SQL_ENGINE_FAILED' });
        expect(performance.now() - started).toBeLessThan(5_000);
        await expect(session.query('SELECT 1', NORMAL)).rejects.toMatchObject({ code: 'SQL_ENGINE_FAILED' });
        await expect(session.reset()).rejects.toMatchObject({ code: 'SQL_ENGINE_FAILED' });
        await expect(engine.open('tiny')).rejects.toMatchObject({ code: 'SQL_ENGINE_FAILED' });
      } finally {
        await engine.close();
      }
    });

    it('stops the server and removes its folder at close', async () => {
      const engine = await c.start();
      await engine.prepare(TINY_DUMP);
      const session = await engine.open('tiny');
      expect(rows(await session.query('SELECT count(*) FROM t', NORMAL))).toEqual([[2n]]);
      const server = await c.server(engine);
      expect(existsSync(server.dir)).toBe(true);
      await engine.close();
      expect(liveInGroup(server.pid)).toEqual([]);
      expect(existsSync(server.dir)).toBe(false);
      await expect(engine.open('tiny')).rejects.toMatchObject({ code: 'SQL_SESSION_CLOSED' });
    });

    it('the server dies with its owner (SIGKILL) and the next start reaps its folder', async () => {
      // The fixture runs the compiled package (dist/): `npm test` builds it first.
      const child: ChildProcess = spawn(process.execPath, [CRASH_OWNER, c.kind], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      try {
        const line = await new Promise<string>((resolve, reject) => {
          createInterface({ input: child.stdout! }).once('line', resolve);
          child.once('exit', (code) => reject(new Error(`the owner exited early (${code})`)));
        });
        const report = JSON.parse(line) as { pid: number; dir: string; owner: string };
        expect(liveInGroup(report.pid).length).toBeGreaterThan(0);
        child.kill('SIGKILL');
        expect(await waitFor(() => liveInGroup(report.pid).length === 0, 5_000)).toBe(true);
        expect(existsSync(report.dir)).toBe(true);
        reapStaleServers();
        expect(existsSync(report.dir)).toBe(false);
      } finally {
        child.kill('SIGKILL');
      }
    });
  });
}
