/**
 * Branching SQL episodes: `SqlEnv.fork(n)` on SQLite gives copies of the episode that share nothing
 * with each other or the original (data, transactions, temporary tables, settings, scores), survive
 * the original's close, and come back with their state when a sibling's runaway query gets the shared
 * process killed.
 */
import { afterAll, describe, expect } from 'vitest';
import type { Env, StepResult } from '../../../src/core/env.js';
import type { Dataset } from '../../../src/core/task.js';
import { TimeLimit } from '../../../src/core/time-limit.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { SqlEnv } from '../../../src/envs/sql/sql-env.js';
import { readMysqlDump } from '../../../src/sql/dump/read-mysql-dump.js';
import { SqliteEngine } from '../../../src/sql/engine/sqlite/sqlite-engine.js';
import { it } from '../../support/fixtures.js';

let demo: Dataset;
let engine: SqliteEngine;
const opened: Env[] = [];
const RUNAWAY = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c';

function env(): SqlEnv {
  const created = new SqlEnv({ dataset: demo, engine, actionTimeoutMs: 2000 });
  opened.push(created);
  return created;
}

async function forked(source: SqlEnv, count: number): Promise<Env[]> {
  const { envs, notCopied } = await source.fork(count);
  expect(notCopied).toEqual([]);
  opened.push(...envs);
  return envs;
}

/** The first cell of a one-row result. */
function value(result: StepResult): unknown {
  const rows = result.observation.rows;
  if (!rows) throw new Error(`no rows: ${result.observation.text}`);
  return rows[0]?.[0];
}

it.beforeAll(async ({ cache }) => {
  demo = await resolveDataset('demo/sql');
  engine = new SqliteEngine({ cacheDir: cache });
  const dump = demo.assets.databaseDump;
  if (!dump) throw new Error('demo/sql has no database dump');
  await engine.prepare(await readMysqlDump(dump));
});

afterAll(async () => {
  await Promise.all(opened.map((created) => created.close()));
  await engine?.close();
});

describe('SqlEnv.fork on SQLite', () => {
  it('gives independent copies of the episode: data, schema, scores', async () => {
    const original = env();
    await original.reset({ taskId: 'count-ships' });
    const ships = Number(value(await original.step('SELECT COUNT(*) FROM ships')));
    await original.step("INSERT INTO ships VALUES (9001, 'Forked', 'tanker', 'Norway', 2000, 1000, NULL)");
    await original.step('CREATE TABLE notes (n INTEGER)');
    const [a, b, c] = await forked(original, 3);
    if (!a || !b || !c) throw new Error('three copies expected');
    await a.step('DELETE FROM ships');
    await b.step('INSERT INTO notes VALUES (2)');
    await c.step('DROP TABLE notes');
    expect(value(await original.step('SELECT COUNT(*) FROM ships'))).toBe(ships + 1);
    expect(value(await a.step('SELECT COUNT(*) FROM ships'))).toBe(0);
    expect(value(await b.step('SELECT COUNT(*) FROM ships'))).toBe(ships + 1);
    expect(value(await b.step('SELECT COUNT(*) FROM notes'))).toBe(1);
    expect(value(await original.step('SELECT COUNT(*) FROM notes'))).toBe(0);
    expect((await c.step('SELECT COUNT(*) FROM notes')).info.admissible).toBe(false);
    // The gold is the task's: each copy is scored on its own last result.
    await b.step('SELECT COUNT(*) FROM ships');
    await a.step('SELECT COUNT(*) FROM ships');
    expect((await a.score()).value).toBe(0);
    expect((await b.score()).value).toBe(0);
    await original.step(`SELECT ${ships}`);
    expect((await original.score()).value).toBe(1);
    // A reset of a copy goes back to the pristine database, not to the fork point.
    await a.reset({ taskId: 'count-ships' });
    expect(value(await a.step('SELECT COUNT(*) FROM ships'))).toBe(ships);
  });

  it('copies an open transaction, temporary tables and session settings', async () => {
    const original = env();
    await original.reset({ taskId: 'count-ships' });
    await original.step('PRAGMA case_sensitive_like = 1');
    await original.step('BEGIN');
    await original.step("UPDATE ships SET name = 'Renamed'");
    await original.step('CREATE TEMP TABLE scratch (s TEXT)');
    await original.step("INSERT INTO scratch VALUES ('x')");
    const [copy] = await forked(original, 1);
    if (!copy) throw new Error('one copy expected');
    expect(value(await copy.step('SELECT COUNT(*) FROM scratch'))).toBe(1);
    expect(value(await copy.step("SELECT COUNT(*) FROM ships WHERE name LIKE 'renamed'"))).toBe(0);
    expect((await copy.step('ROLLBACK')).info.admissible).toBe(true);
    expect(value(await copy.step("SELECT COUNT(*) FROM ships WHERE name = 'Renamed'"))).toBe(0);
    expect(value(await original.step("SELECT COUNT(*) FROM ships WHERE name = 'Renamed'"))).toBeGreaterThan(
      0,
    );
    expect((await original.step('COMMIT')).info.admissible).toBe(true);
  });

  it('keeps the copies going when the original closes, and after a sibling’s runaway query', async () => {
    const original = env();
    await original.reset({ taskId: 'count-ships' });
    await original.step("INSERT INTO ships VALUES (9002, 'Kept', 'tanker', 'Norway', 2000, 1000, NULL)");
    const [first, second] = await forked(original, 2);
    if (!first || !second) throw new Error('two copies expected');
    await original.close();
    await second.step("INSERT INTO ships VALUES (9003, 'Second', 'tanker', 'Norway', 2000, 1000, NULL)");
    const stopped = await first.step(RUNAWAY);
    expect(stopped.observation.timedOut).toBe(true);
    expect(value(await first.step('SELECT COUNT(*) FROM ships WHERE ship_id >= 9002'))).toBe(1);
    expect(value(await second.step('SELECT COUNT(*) FROM ships WHERE ship_id >= 9002'))).toBe(2);
  });

  it('refuses a fork before reset and a count out of range; eight copies at once', async () => {
    const fresh = env();
    await expect(fresh.fork(2)).rejects.toMatchObject({ code: 'ENV_RESET_NEEDED' });
    await fresh.reset({ taskId: 'count-ships' });
    await expect(fresh.fork(0)).rejects.toMatchObject({ code: 'ENV_INVALID_ACTION' });
    await expect(fresh.fork(1.5)).rejects.toMatchObject({ code: 'ENV_INVALID_ACTION' });
    await fresh.step("INSERT INTO ships VALUES (9004, 'Timed', 'tanker', 'Norway', 2000, 1000, NULL)");
    const copies = await forked(fresh, 8);
    expect(copies).toHaveLength(8);
    const counts = await Promise.all(
      copies.map(async (copy) => value(await copy.step('SELECT COUNT(*) FROM ships WHERE ship_id = 9004'))),
    );
    expect(counts).toEqual(Array(8).fill(1));
  });

  it('passes through TimeLimit: each copy keeps the turns taken so far', async () => {
    const limited = new TimeLimit(env(), 3);
    await limited.reset({ taskId: 'count-ships' });
    await limited.step('SELECT 1');
    await limited.step('SELECT 2');
    const { envs } = await limited.fork(2);
    opened.push(...envs);
    const [copy] = envs;
    if (!copy) throw new Error('a copy expected');
    expect((await copy.step('SELECT 3')).truncated).toBe(true);
    await expect(copy.step('SELECT 4')).rejects.toMatchObject({ code: 'ENV_RESET_NEEDED' });
    expect((await limited.step('SELECT 3')).truncated).toBe(true);
    const unforkable = new TimeLimit(
      {
        ...limited,
        reset: () => limited.reset(),
        step: (a) => limited.step(a),
        score: () => limited.score(),
        close: async () => {},
      },
      2,
    );
    await expect(unforkable.fork(1)).rejects.toMatchObject({ code: 'ENV_FORK_UNSUPPORTED' });
  });
});
