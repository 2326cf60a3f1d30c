/**
 * The SQLite engine on the upstream databases: all 20 Spider databases and WikiSQL's `dev` load
 * with every row, and every Spider gold query runs. The data is read from $INTERCODE_DATA_MIRROR
 * (default: ../shared/datasets/intercode next to the project); skipped when it is not there.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlDatasets } from '../../../../src/datasets/sql-datasets.js';
import type { DumpModel } from '../../../../src/sql/dump/dump-model.js';
import { readMysqlDump } from '../../../../src/sql/dump/read-mysql-dump.js';
import type { QueryOutcome, SqlSession } from '../../../../src/sql/engine/sql-engine.js';
import { SqliteEngine } from '../../../../src/sql/engine/sqlite/sqlite-engine.js';
import { sqliteName } from '../../../../src/sql/engine/sqlite/sqlite-schema.js';
import {
  MIRROR,
  MIRROR_PRESENT,
  mirrorDump,
  SPIDER_DUMP,
  SPIDER_TASKS,
  temporaryDir,
  WIKISQL_DUMP,
} from '../../../envs/sql/sql-fixtures.js';

interface SpiderTask {
  readonly db: string;
  readonly gold: string;
}

const ALL_ROWS = { timeoutMs: 10_000, maxRows: Number.POSITIVE_INFINITY };

function rows(outcome: QueryOutcome): unknown[][] {
  if (outcome.kind !== 'rows') throw new Error(`expected rows, got ${JSON.stringify(outcome)}`);
  return outcome.rows;
}

/** Runs every gold on its database; returns the failures (task index, message). */
async function runGolds(engine: SqliteEngine, tasks: readonly SpiderTask[]) {
  const sessions = new Map<string, SqlSession>();
  const failures: { index: number; message: string }[] = [];
  let empty = 0;
  for (const [index, task] of tasks.entries()) {
    let session = sessions.get(task.db);
    if (!session) {
      session = await engine.open(task.db);
      sessions.set(task.db, session);
    }
    const outcome = await session.query(task.gold, ALL_ROWS);
    if (outcome.kind === 'error') failures.push({ index, message: outcome.message });
    else if (outcome.kind === 'rows' && outcome.totalRows === 0) empty++;
  }
  await Promise.all([...sessions.values()].map((session) => session.close()));
  return { failures, empty };
}

/** Failure messages by class (the message with its quoted detail cut). */
function classify(failures: readonly { message: string }[]): Record<string, number> {
  const classes: Record<string, number> = {};
  for (const { message } of failures) {
    const key = message.replace(/"[^"]*"/g, '"…"').replace(/: [^"]*$/, ': …');
    classes[key] = (classes[key] ?? 0) + 1;
  }
  return classes;
}

describe.skipIf(!MIRROR_PRESENT)('SqliteEngine on the upstream databases', () => {
  const cache = temporaryDir('sqlite-upstream');
  const engine = new SqliteEngine({ cacheDir: cache.dir });
  let spider: DumpModel;
  let wikisql: DumpModel;
  let tasks: SpiderTask[];

  beforeAll(async () => {
    spider = mirrorDump(SPIDER_DUMP);
    wikisql = mirrorDump(WIKISQL_DUMP);
    tasks = JSON.parse(readFileSync(SPIDER_TASKS, 'utf8')) as SpiderTask[];
    await engine.prepare(spider);
    await engine.prepare(wikisql);
  });

  afterAll(async () => {
    await engine.close();
    cache.remove();
  });

  it('loads every table of the 20 Spider databases and WikiSQL with all its rows', async () => {
    expect(engine.databases()).toHaveLength(21);
    let tables = 0;
    let total = 0;
    for (const database of [...spider.databases, ...wikisql.databases]) {
      const session = await engine.open(database.name);
      try {
        const listed = rows(
          await session.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", ALL_ROWS),
        );
        expect(listed.map(([name]) => name)).toEqual(database.tables.map((t) => t.name).sort());
        for (const table of database.tables) {
          const [[count]] = rows(
            await session.query(`SELECT count(*) FROM ${sqliteName(table.name)}`, ALL_ROWS),
          ) as [[bigint]];
          expect(count, `${database.name}.${table.name}`).toBe(BigInt(table.rows.length));
          tables++;
          total += table.rows.length;
        }
      } finally {
        await session.close();
      }
    }
    expect(tables).toBe(81 + 50);
    expect(total).toBe(6952 + 835);
  });

  it('keeps the dump values: escapes, decimals, dates, floats', async () => {
    const world = await engine.open('world_1');
    const music = await engine.open('singer');
    const dev = await engine.open('dev');
    const kennels = await engine.open('dog_kennels');
    const students = await engine.open('student_transcripts_tracking');
    try {
      expect(
        rows(
          await kennels.query(
            'SELECT charge_amount, typeof(charge_amount) FROM Charges ORDER BY charge_id',
            ALL_ROWS,
          ),
        ),
      ).toEqual([
        [98, 'real'],
        [322, 'real'],
        [640, 'real'],
      ]);
      const [[registered, type]] = rows(
        await students.query(
          'SELECT min(date_first_registered), typeof(date_first_registered) FROM Students',
          ALL_ROWS,
        ),
      ) as [[string, string]];
      expect(registered).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(type).toBe('text');
      expect(
        rows(
          await world.query(
            "SELECT HeadOfState, SurfaceArea, LifeExpectancy, IndepYear FROM country WHERE Code = 'TON'",
            ALL_ROWS,
          ),
        ),
      ).toEqual([["Taufa'ahau Tupou IV", 650, 67.9, 1970n]]);
      expect(rows(await music.query("SELECT Title FROM song WHERE Title LIKE 'do they%'", ALL_ROWS))).toEqual(
        [["Do They Know It's Christmas"]],
      );
      expect(
        rows(
          await dev.query('SELECT "School/Club_Team" FROM table_1_10015132_9 WHERE id_fake = 4', ALL_ROWS),
        ),
      ).toEqual([["St. John's"]]);
    } finally {
      await Promise.all([world.close(), music.close(), dev.close(), kennels.close(), students.close()]);
    }
  });

  it('runs every Spider gold query (with double-quoted strings as MySQL reads them)', async () => {
    expect(tasks).toHaveLength(1034);
    const { failures, empty } = await runGolds(engine, tasks);
    console.log(
      `Spider golds on SQLite: ${tasks.length - failures.length}/${tasks.length} run, ${empty} empty results`,
      classify(failures),
    );
    expect(failures).toEqual([]);
    // 62 of the empty results are the wta_1 tasks: the upstream dump has no rows for that database.
    expect(empty).toBe(88);
    expect(tasks.filter((task) => task.db === 'wta_1')).toHaveLength(62);
  });

  it('fails exactly the golds with double-quoted strings under SQLite’s strict rule', async () => {
    const strict = new SqliteEngine({ cacheDir: cache.dir, doubleQuotedStrings: false });
    try {
      await strict.prepare(spider);
      const { failures } = await runGolds(strict, tasks);
      console.log(
        `Spider golds on strict SQLite: ${tasks.length - failures.length}/${tasks.length} run`,
        classify(failures),
      );
      expect(failures).toHaveLength(213);
      expect(classify(failures)).toEqual({
        'no such column: "…" - should this be a string literal in single-quotes?': 213,
      });
      expect(failures.map((f) => f.index)).toEqual(
        tasks.flatMap((task, index) => (/"[^"]*"/.test(task.gold) ? [index] : [])),
      );
    } finally {
      await strict.close();
    }
  });

  it('reads the dump from the spider/dev dataset asset', async () => {
    const saved = { cache: process.env.INTERCODE_CACHE_DIR, mirror: process.env.INTERCODE_DATA_MIRROR };
    const data = temporaryDir('sqlite-dataset');
    process.env.INTERCODE_CACHE_DIR = data.dir;
    process.env.INTERCODE_DATA_MIRROR = MIRROR;
    try {
      const spec = sqlDatasets().find((s) => s.id === 'spider/dev');
      const dataset = await spec!.load();
      const dump = dataset.assets.databaseDump;
      expect(dump).toBeDefined();
      expect((await readMysqlDump(dump!)).sha256).toBe(spider.sha256);
    } finally {
      for (const [key, value] of [
        ['INTERCODE_CACHE_DIR', saved.cache],
        ['INTERCODE_DATA_MIRROR', saved.mirror],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      data.remove();
    }
  });
});
