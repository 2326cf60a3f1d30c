/**
 * `demo/sql`: the embedded dump parses into the documented tables; the tasks are well formed; every
 * gold returns rows on SQLite and a wrong query scores below 1 (SqlEnv API). demo-sql.gold.test.ts
 * has the gold agent solve every task through the CLI on each engine.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect } from 'vitest';
import type { Dataset } from '../../../src/core/task.js';
import { createDatasetRegistry } from '../../../src/datasets/dataset-registry.js';
import { demoSqlDataset } from '../../../src/datasets/demo/demo-sql.js';
import { DEMO_SQL_DATABASE, DEMO_SQL_DUMP } from '../../../src/datasets/demo/demo-sql-dump.js';
import { DEMO_SQL_TABLES, DEMO_SQL_TASKS } from '../../../src/datasets/demo/demo-sql-tasks.js';
import { SqlEnv } from '../../../src/envs/sql/sql-env.js';
import { parseMysqlDump } from '../../../src/sql/dump/parse-mysql-dump.js';
import { SqliteEngine } from '../../../src/sql/engine/sqlite/sqlite-engine.js';
import { it } from '../../support/fixtures.js';

const ROWS: Readonly<Record<string, number>> = { ports: 13, ships: 15, crew: 32, voyages: 40, cargo: 51 };
const KINDS = ['select', 'filter', 'aggregate', 'join', 'order', 'subquery', 'set'];

let dataset: Dataset;
let engine: SqliteEngine;
let env: SqlEnv;

// The file's own cache (INTERCODE_CACHE_DIR) for everything below.
it.beforeAll(async ({ cache }) => {
  dataset = await demoSqlDataset().load();
  engine = new SqliteEngine({ cacheDir: cache });
  await engine.prepare(parseMysqlDump(DEMO_SQL_DUMP));
  env = new SqlEnv({ dataset, engine });
});

afterAll(async () => {
  await env?.close();
  await engine?.close();
});

/** The reward of `query` as the only action of task `id`, on SQLite. */
async function rewardOf(id: string, query: string): Promise<number> {
  await env.reset({ taskId: id });
  await env.step(query);
  return (await env.score()).value;
}

describe('demo/sql: database and tasks', () => {
  it('the embedded dump parses: one database, five tables with their columns and row counts', () => {
    const model = parseMysqlDump(DEMO_SQL_DUMP);
    expect(model.databases.map((database) => database.name)).toEqual([DEMO_SQL_DATABASE]);
    const tables = model.databases[0]!.tables;
    expect(Object.fromEntries(tables.map((table) => [table.name, table.rows.length]))).toEqual(ROWS);
    expect(Object.fromEntries(tables.map((table) => [table.name, table.columns.map((c) => c.name)]))).toEqual(
      DEMO_SQL_TABLES,
    );
    const types = new Set(tables.flatMap((table) => table.columns.map((column) => column.mysqlType)));
    for (const type of ['int', 'decimal(9,2)', 'varchar(60)', 'text', 'date', 'datetime']) {
      expect(types).toContain(type);
    }
    const values = tables.flatMap((table) => table.rows.flat());
    expect(values.filter((value) => value.kind === 'null').length).toBeGreaterThan(10);
    expect(values).toContainEqual({ kind: 'string', value: "St. John's" });
    expect(tables.every((table) => table.primaryKey.length === 1)).toBe(true);
  });

  it('has at least 24 tasks with unique slug ids, every kind, and the documented fields', () => {
    expect(DEMO_SQL_TASKS.length).toBeGreaterThanOrEqual(24);
    expect(new Set(DEMO_SQL_TASKS.map((task) => task.id)).size).toBe(DEMO_SQL_TASKS.length);
    for (const task of DEMO_SQL_TASKS) {
      expect(task.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(KINDS).toContain(task.group);
      expect(task.query.length, task.id).toBeGreaterThan(15);
      expect(task.db).toBe(DEMO_SQL_DATABASE);
      expect(task.db_tables).toEqual(DEMO_SQL_TABLES);
    }
    for (const kind of KINDS) {
      expect(DEMO_SQL_TASKS.filter((task) => task.group === kind).length, kind).toBeGreaterThanOrEqual(3);
    }
  });

  it('golds are portable: no engine-specific functions, no double-quoted strings, LIMIT only after ORDER BY', () => {
    for (const task of DEMO_SQL_TASKS) {
      expect(task.gold, task.id).not.toMatch(/["`]/);
      expect(task.gold, task.id).not.toMatch(
        /\b(IFNULL|STR_TO_DATE|DATE_FORMAT|CURDATE|NOW|YEAR|REGEXP|RAND|CONCAT|GROUP_CONCAT|ILIKE|TOP)\b/i,
      );
      expect(task.gold, task.id).not.toMatch(/\w\s*\/\s*\w/);
      if (/\bLIMIT\b/i.test(task.gold)) expect(task.gold, task.id).toMatch(/\bORDER BY\b.*\bLIMIT\b/i);
    }
  });

  it('loads as a built-in dataset: registered, tasks with meta.db and db_tables, the dump as asset', () => {
    const spec = createDatasetRegistry().get('demo/sql');
    expect(spec).toMatchObject({ env: 'sql', builtIn: true, files: [], taskCount: DEMO_SQL_TASKS.length });
    expect(dataset).toMatchObject({ id: 'demo/sql', env: 'sql' });
    expect(readFileSync(dataset.assets.databaseDump!, 'utf8')).toBe(DEMO_SQL_DUMP);
    expect(dataset.tasks.map((task) => task.id)).toEqual(DEMO_SQL_TASKS.map((task) => task.id));
    dataset.tasks.forEach((task, index) => {
      const source = DEMO_SQL_TASKS[index]!;
      expect(task).toEqual({
        id: source.id,
        index,
        query: source.query,
        gold: source.gold,
        group: source.group,
        meta: { db: DEMO_SQL_DATABASE, db_tables: DEMO_SQL_TABLES },
      });
    });
  });
});

describe('demo/sql on the SqlEnv API (SQLite)', () => {
  it('every gold returns at least one row and scores 1', async () => {
    for (const task of DEMO_SQL_TASKS) {
      await env.reset({ taskId: task.id });
      const step = await env.step(task.gold);
      expect(step.info.admissible, `${task.id}: ${step.observation.text}`).toBe(true);
      expect(step.observation.rows?.length ?? 0, task.id).toBeGreaterThan(0);
      expect((await env.score()).value, task.id).toBe(1);
    }
  });

  it('wrong queries score less than 1; other correct formulations score 1', async () => {
    // Another ship type: no row in common.
    expect(
      await rewardOf('count-container-ships', "SELECT COUNT(*) FROM ships WHERE ship_type = 'Tanker'"),
    ).toBe(0);
    // One row short: IoU 4/5.
    expect(
      await rewardOf(
        'ships-built-before-2010',
        'SELECT name, built_year FROM ships WHERE built_year < 2009 ORDER BY built_year, ship_id',
      ),
    ).toBe(0.8);
    // The right rows in reverse order: Kendall's tau is -1.
    expect(await rewardOf('list-ports', 'SELECT name, country FROM ports ORDER BY name DESC')).toBeLessThan(
      0,
    );
    // The wrong filter: some rows in common.
    expect(
      await rewardOf('unassigned-crew', 'SELECT full_name FROM crew WHERE email IS NULL ORDER BY full_name'),
    ).toBeLessThan(1);
    // Not a result set at all.
    expect(await rewardOf('total-cargo-weight', 'SELECT SUM(weight) FROM cargo')).toBe(0);

    expect(
      await rewardOf(
        'count-container-ships',
        "SELECT COUNT(*) FROM ships WHERE UPPER(ship_type) = 'CONTAINER'",
      ),
    ).toBe(1);
    expect(
      await rewardOf(
        'ports-never-visited',
        'SELECT p.name FROM ports p LEFT JOIN voyages o ON o.origin_port_id = p.port_id LEFT JOIN voyages d ON d.dest_port_id = p.port_id WHERE o.voyage_id IS NULL AND d.voyage_id IS NULL',
      ),
    ).toBe(1);
  });
});
