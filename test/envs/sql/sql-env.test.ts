/**
 * The SQL environment on the real SQLite engine with the Spider dev set from the local mirror:
 * rewards (gold, partial, reversed order, errors, corrupt gold), pristine databases across episodes,
 * one statement per action, time limits, huge results, the schema hint, skip/submit, and the MySQL
 * introspection statements the paper's agents use.
 */
import { afterAll, describe, expect } from 'vitest';
import { EnvError } from '../../../src/core/errors.js';
import type { Dataset, Task } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { SqlEnv, type SqlEnvOptions } from '../../../src/envs/sql/sql-env.js';
import { readMysqlDump } from '../../../src/sql/dump/read-mysql-dump.js';
import { SqliteEngine } from '../../../src/sql/engine/sqlite/sqlite-engine.js';
import { it } from '../../support/fixtures.js';

let spider: Dataset;
let engine: SqliteEngine;
const envs: SqlEnv[] = [];

/** Task 10 (tvshow, easy): `SELECT Title FROM Cartoon ORDER BY title`, 12 distinct titles. */
const ORDERED = 10;
const CARTOONS = 12;

function env(options: Partial<SqlEnvOptions> = {}): SqlEnv {
  const created = new SqlEnv({ dataset: spider, engine, ...options });
  envs.push(created);
  return created;
}

function taskAt(index: number): Task {
  const task = spider.tasks[index];
  if (!task) throw new Error(`no task ${index}`);
  return task;
}

function gold(index: number): string {
  const { gold: value } = taskAt(index);
  if (typeof value !== 'string') throw new Error(`task ${index} has no gold query`);
  return value;
}

// The file's own cache (INTERCODE_CACHE_DIR) and the local mirror (INTERCODE_DATA_MIRROR) for
// everything below.
it.beforeAll(async ({ cache, mirror: _mirror }) => {
  spider = await resolveDataset('spider/dev');
  engine = new SqliteEngine({ cacheDir: cache });
  const dump = spider.assets.databaseDump;
  if (!dump) throw new Error('spider/dev has no database dump');
  await engine.prepare(await readMysqlDump(dump));
}, 60_000);

afterAll(async () => {
  await Promise.all(envs.map((created) => created.close()));
  await engine?.close();
});

describe('SqlEnv rewards (Spider dev on SQLite)', () => {
  it('loads spider/dev: 1034 tasks with their database, tables and hardness group', () => {
    expect(spider.tasks).toHaveLength(1034);
    expect(taskAt(ORDERED)).toMatchObject({ group: 'easy', meta: { db: 'tvshow' } });
    expect(Object.keys(taskAt(ORDERED).meta.db_tables as object)).toContain('Cartoon');
  });

  it('scores the gold query of a task 1, with its IoU and tau parts', async () => {
    const sql = env();
    const { observation, info } = await sql.reset({ index: ORDERED });
    expect(observation.text).toBe(taskAt(ORDERED).query);
    expect(info).toMatchObject({
      taskId: taskAt(ORDERED).id,
      index: ORDERED,
      database: 'tvshow',
      group: 'easy',
    });
    const step = await sql.step(gold(ORDERED));
    expect(step).toMatchObject({ reward: 0, terminated: false, info: { admissible: true } });
    expect(step.observation.rows).toHaveLength(CARTOONS);
    expect(step.observation.columns).toEqual(['Title']);
    const submitted = await sql.step('submit');
    expect(submitted).toMatchObject({ reward: 1, terminated: true, truncated: false });
    expect(submitted.info.score).toMatchObject({ value: 1, parts: { iou: 1 } });
    expect(submitted.info.score?.parts?.tau).toBeCloseTo(1, 12);
    expect(submitted.info.score?.goldCorrupt).toBeUndefined();
    // What the scorer saw: the rows and the gold's output, exactly as the gold query's observation.
    expect(submitted.info.score?.details).toMatchObject({
      rule: 'tau-scaled',
      agentRows: CARTOONS,
      goldRows: CARTOONS,
      intersection: CARTOONS,
      union: CARTOONS,
      goldOutput: step.observation.text,
    });
  });

  it('gives a partial reward for missing rows: the IoU, unrounded when tau is 1', async () => {
    const sql = env();
    await sql.reset({ index: ORDERED });
    await sql.step('SELECT Title FROM Cartoon ORDER BY title LIMIT 3');
    const score = await sql.score();
    expect(score.parts).toEqual({ iou: 3 / CARTOONS, tau: 1 });
    expect(score.value).toBe(0.25);
    expect(score.value).toBeLessThan(1);
  });

  it('scores the right rows in reverse order of an ORDER BY task negative (raw tau -1, as upstream)', async () => {
    const sql = env();
    await sql.reset({ index: ORDERED });
    await sql.step('SELECT Title FROM Cartoon ORDER BY title DESC');
    const score = await sql.score();
    // scipy's float64 order of operations: -66 / sqrt(66) / sqrt(66), one ulp above -1.
    expect(score.parts?.iou).toBe(1);
    expect(score.parts?.tau).toBeCloseTo(-1, 12);
    expect(score.value).toBe(-1);
  });

  it('scores a failing query 0: not admissible, "Error executing query:" observation', async () => {
    const sql = env();
    await sql.reset({ index: ORDERED });
    const step = await sql.step('SELECT title FROM nowhere');
    expect(step.info.admissible).toBe(false);
    expect(step.observation.text).toMatch(/^Error executing query: no such table: nowhere/);
    const submitted = await sql.step('submit');
    expect(submitted.reward).toBe(0);
    expect(submitted.info.score?.details).toMatchObject({ rule: 'not-a-result-set' });
  });

  it('flags a gold query that fails (goldCorrupt): only an empty agent result scores 1', async () => {
    const base = taskAt(ORDERED);
    const bogus: Dataset = {
      id: 'bogus-gold',
      env: 'sql',
      assets: spider.assets,
      tasks: [
        {
          id: 'bogus',
          index: 0,
          query: 'a task whose gold fails',
          gold: 'SELECT x FROM no_such_table',
          meta: base.meta,
        },
      ],
    };
    const sql = env({ dataset: bogus });
    await sql.reset({ index: 0 });
    await sql.step('SELECT Title FROM Cartoon');
    const rows = await sql.score();
    expect(rows).toMatchObject({ value: 0, goldCorrupt: true });
    expect(rows.details?.goldError).toMatch(/no such table/);
    // The gold's output is what the agent would have seen running it.
    expect(rows.details?.goldOutput).toMatch(/^Error executing query: no such table: no_such_table/);
    await sql.step('SELECT Title FROM Cartoon WHERE 1 = 0');
    expect(await sql.score()).toMatchObject({ value: 1, goldCorrupt: true });
    await sql.step('SELECT nope');
    expect(await sql.score()).toMatchObject({ value: 0, goldCorrupt: true });
  });
});

describe('SqlEnv episodes start pristine', () => {
  it('undoes DML at reset: DELETE FROM t, then the next episode has every row', async () => {
    const sql = env();
    await sql.reset({ index: ORDERED });
    const deleted = await sql.step('DELETE FROM Cartoon');
    expect(deleted.info.admissible).toBe(true);
    expect(deleted.observation.text).toMatch(/12 rows affected/);
    expect((await sql.step('SELECT count(*) FROM Cartoon')).observation.rows).toEqual([[0]]);
    // The gold runs on its own pristine session, untouched by the agent's DELETE.
    await sql.step(gold(ORDERED));
    expect((await sql.score()).value).toBe(0);
    await sql.reset({ index: ORDERED });
    expect((await sql.step('SELECT count(*) FROM Cartoon')).observation.rows).toEqual([[CARTOONS]]);
    await sql.step(gold(ORDERED));
    expect((await sql.score()).value).toBe(1);
  });

  it('runs the gold on the pristine copy even when the agent writes right after the reset', async () => {
    const sql = env();
    await sql.reset({ index: ORDERED });
    await sql.step("UPDATE Cartoon SET Title = 'x'");
    // The next episode's gold may still be on its way when the agent's first statement leaves.
    await sql.reset({ index: ORDERED });
    expect((await sql.step('DELETE FROM Cartoon')).observation.text).toMatch(/12 rows affected/);
    const score = await sql.score();
    expect(score.value).toBe(0);
    expect(score.goldCorrupt).toBeUndefined();
    await sql.step(gold(ORDERED));
    expect((await sql.score()).value).toBe(0);
    await sql.reset({ index: ORDERED });
    await sql.step(gold(ORDERED));
    expect((await sql.score()).value).toBe(1);
  });

  it('restores a dropped table at reset', async () => {
    const sql = env();
    await sql.reset({ index: ORDERED });
    expect((await sql.step('DROP TABLE Cartoon')).info.admissible).toBe(true);
    expect((await sql.step('SELECT count(*) FROM Cartoon')).observation.text).toMatch(/no such table/);
    await sql.reset({ index: ORDERED });
    expect((await sql.step('SELECT count(*) FROM Cartoon')).observation.rows).toEqual([[CARTOONS]]);
  });

  it('drops a transaction left open at reset', async () => {
    const sql = env();
    await sql.reset({ index: ORDERED });
    expect((await sql.step('BEGIN')).info.admissible).toBe(true);
    expect((await sql.step("UPDATE Cartoon SET Title = 'x'")).info.admissible).toBe(true);
    expect((await sql.step('SELECT DISTINCT Title FROM Cartoon')).observation.rows).toEqual([['x']]);
    await sql.reset({ index: ORDERED });
    expect((await sql.step('SELECT count(DISTINCT Title) FROM Cartoon')).observation.rows).toEqual([
      [CARTOONS],
    ]);
    // No transaction is open any more: BEGIN works again.
    expect((await sql.step('BEGIN')).info.admissible).toBe(true);
  });
});

describe('SqlEnv limits', () => {
  it('refuses two statements in one action and keeps working', async () => {
    const sql = env();
    await sql.reset({ index: ORDERED });
    const step = await sql.step('SELECT 1; DELETE FROM Cartoon');
    expect(step.info).toMatchObject({ admissible: false, errorCode: 'MULTIPLE_STATEMENTS' });
    expect(step.observation.text).toMatch(/^Error executing query: one statement per action/);
    expect((await sql.step('SELECT count(*) FROM Cartoon')).observation.rows).toEqual([[CARTOONS]]);
  });

  it('stops a never-ending query at the action time limit and keeps working', async () => {
    const sql = env({ actionTimeoutMs: 300 });
    await sql.reset({ index: ORDERED });
    const started = performance.now();
    const step = await sql.step(
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c',
    );
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(step.observation.timedOut).toBe(true);
    expect(step.info).toMatchObject({ admissible: false, errorCode: 'TIMEOUT' });
    expect(step.observation.text).toMatch(/^Error executing query: .*timed out/);
    await sql.step(gold(ORDERED));
    expect((await sql.score()).value).toBe(1);
  });

  it('shows few rows of a 10-million-row result, counts the rest and scores it without hanging', async () => {
    const sql = env({ shownRows: 20 });
    await sql.reset({ index: ORDERED });
    const step = await sql.step(
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000) SELECT x FROM c',
    );
    expect(step.info.admissible).toBe(true);
    const lines = step.observation.text.trimEnd().split('\n');
    expect(lines[0]).toBe('x');
    expect(lines).toHaveLength(1 + 20 + 1);
    expect(lines.at(-1)).toMatch(/^\(more than \d+ rows; only 20 shown\)$/);
    expect(step.observation.truncated?.originalRows).toBeGreaterThanOrEqual(100_000);
    expect(step.observation.rows!.length).toBeLessThan(step.observation.truncated!.originalRows!);
    const score = await sql.score();
    expect(score.value).toBe(0);
  });

  it('says how many rows were not shown when it counted them all', async () => {
    const sql = env({ shownRows: 5 });
    await sql.reset({ index: ORDERED });
    const step = await sql.step('SELECT Title FROM Cartoon');
    expect(step.observation.text.trimEnd().split('\n')).toHaveLength(1 + 5 + 1);
    expect(step.observation.text).toMatch(/\(12 rows; 7 not shown\)\n$/);
    // The gold's output is cut the same way (the gold's own query shows the same text), made once.
    const same = await sql.step(gold(ORDERED));
    expect(same.observation.text).toMatch(/\(12 rows; 7 not shown\)\n$/);
    await sql.step('SELECT 1');
    const first = await sql.score();
    expect(first.details?.goldOutput).toBe(same.observation.text);
    expect((await sql.score()).details?.goldOutput).toBe(first.details?.goldOutput);
  });
});

describe('SqlEnv episode protocol', () => {
  it('adds the schema hint to the reset observation with handicap, not without', async () => {
    const plain = await env().reset({ index: ORDERED });
    expect(plain.observation.text).toBe(taskAt(ORDERED).query);
    expect(plain.info.schemaHint).toMatch(/Cartoon/);
    const hinted = await env({ handicap: true }).reset({ index: ORDERED });
    expect(hinted.observation.text.startsWith(taskAt(ORDERED).query)).toBe(true);
    expect(hinted.observation.text).toContain(String(plain.info.schemaHint));
    expect(hinted.observation.text).toMatch(/- Cartoon: id, Title, Directed_by/);
  });

  it("gives a result's rows in the observation like a plain field: JSON-safe, listed, serialised, copied", async () => {
    const sql = env();
    await sql.reset({ index: ORDERED });
    const { observation } = await sql.step("SELECT count(*), 'x', 1.5, NULL, X'0aff' FROM Cartoon");
    const expected = [[CARTOONS, 'x', 1.5, null, '0x0aff']];
    expect(observation.rows).toEqual(expected);
    expect(observation.rows).toBe(observation.rows);
    expect(Object.keys(observation)).toContain('rows');
    expect(JSON.parse(JSON.stringify(observation)).rows).toEqual(expected);
    expect(structuredClone(observation).rows).toEqual(expected);
    expect({ ...observation }.rows).toEqual(expected);
  });

  it('gives the schema hint in the reset info like a plain field: listed, serialised, copied', async () => {
    const { info } = await env().reset({ index: ORDERED });
    const hint = info.schemaHint;
    expect(hint).toMatch(/^Tables of this database and their columns:\n- /);
    expect(Object.keys(info)).toContain('schemaHint');
    expect(JSON.parse(JSON.stringify(info)).schemaHint).toBe(hint);
    expect(structuredClone(info).schemaHint).toBe(hint);
    expect({ ...info }.schemaHint).toBe(hint);
    expect(info.schemaHint).toBe(hint);
  });

  it('skip ends the episode with reward 0; submit ends it with the score', async () => {
    const sql = env();
    await sql.reset({ index: ORDERED });
    await sql.step(gold(ORDERED));
    const skipped = await sql.step('skip');
    expect(skipped).toMatchObject({
      reward: 0,
      terminated: true,
      truncated: false,
      observation: { text: 'skipped' },
    });
    await sql.reset({ index: ORDERED });
    const early = await sql.step('submit');
    expect(early).toMatchObject({ reward: 0, terminated: true });
    await sql.reset({ index: ORDERED });
    await sql.step(gold(ORDERED));
    await sql.step('SELECT 1');
    // The reward is of the last result, as upstream.
    expect((await sql.step({ type: 'submit' })).reward).toBe(0);
  });

  it('refuses step before reset (ENV_RESET_NEEDED)', async () => {
    const sql = env();
    const error = await sql.step('SELECT 1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EnvError);
    expect(error).toMatchObject({ code: 'ENV_RESET_NEEDED' });
    await expect(sql.score()).rejects.toMatchObject({ code: 'ENV_RESET_NEEDED' });
  });
});

describe('SqlEnv answers MySQL introspection', () => {
  it('SHOW TABLES lists the tables as MySQL (lower_case_table_names=1) did', async () => {
    const sql = env();
    await sql.reset({ index: ORDERED });
    const step = await sql.step('SHOW TABLES');
    expect(step.info.admissible).toBe(true);
    expect(step.observation.columns).toEqual(['Tables_in_tvshow']);
    expect(step.observation.rows).toEqual([['cartoon'], ['tv_channel'], ['tv_series']]);
    expect(step.observation.text).toBe('Tables_in_tvshow\ncartoon\ntv_channel\ntv_series\n(3 rows)\n');
  });

  it('DESCRIBE / DESC / SHOW COLUMNS give MySQL types, keys, defaults and extras', async () => {
    const sql = env();
    await sql.reset({ index: 0 });
    const described = await sql.step('describe poker_player;');
    expect(described.observation.columns).toEqual(['Field', 'Type', 'Null', 'Key', 'Default', 'Extra']);
    expect(described.observation.rows).toEqual([
      ['Poker_Player_ID', 'int', 'NO', 'PRI', null, 'auto_increment'],
      ['People_ID', 'int', 'YES', 'MUL', null, ''],
      ['Final_Table_Made', 'double', 'YES', '', null, ''],
      ['Best_Finish', 'double', 'YES', '', null, ''],
      ['Money_Rank', 'double', 'YES', '', null, ''],
      ['Earnings', 'double', 'YES', '', null, ''],
    ]);
    expect((await sql.step('DESC Poker_Player')).observation.rows).toEqual(described.observation.rows);
    expect((await sql.step('SHOW COLUMNS FROM `poker_player`')).observation.rows).toEqual(
      described.observation.rows,
    );
  });

  it('answers an unknown table with MySQL error 1146 text; the agent’s own tables are described too', async () => {
    const sql = env();
    await sql.reset({ index: 0 });
    const missing = await sql.step('DESCRIBE poker_players');
    expect(missing.info).toMatchObject({ admissible: false, errorCode: 'ER_NO_SUCH_TABLE' });
    expect(missing.observation.text).toBe(
      "Error executing query: Table 'poker_player.poker_players' doesn't exist\n",
    );
    await sql.step('CREATE TABLE notes (id INTEGER PRIMARY KEY, body VARCHAR(40) NOT NULL)');
    expect((await sql.step('SHOW TABLES')).observation.rows).toEqual([
      ['notes'],
      ['people'],
      ['poker_player'],
    ]);
    expect((await sql.step('DESCRIBE notes')).observation.rows).toEqual([
      ['id', 'int', 'NO', 'PRI', null, 'auto_increment'],
      ['body', 'varchar(40)', 'NO', '', null, ''],
    ]);
    await sql.reset({ index: 0 });
    expect((await sql.step('SHOW TABLES')).observation.rows).toEqual([['people'], ['poker_player']]);
  });
});
