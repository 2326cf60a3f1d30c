/**
 * Hostile class (issue 11, SQL): the gold query must run where the agent's session cannot observe
 * it. It used to run on the agent's own connection just before its first action, so the agent read
 * the gold's row count (`FOUND_ROWS()`), its work (MySQL's session status counters, PostgreSQL's
 * `pg_stat_xact_user_tables`), its changes (`changes()`, rows a writing gold left), and on
 * PostgreSQL its text (`pg_stat_activity`). Each engine: two tasks whose golds differ only in the
 * rows they return must leave the agent's session in the same state, and a gold that writes must
 * leave the database pristine (it is refused: the reference connection only reads).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect } from 'vitest';
import type { Dataset, Task } from '../../../src/core/task.js';
import { SqlEnv } from '../../../src/envs/sql/sql-env.js';
import { parseMysqlDump } from '../../../src/sql/dump/parse-mysql-dump.js';
import { MysqlEngine } from '../../../src/sql/engine/mysql/mysql-engine.js';
import { PostgresEngine } from '../../../src/sql/engine/postgres/postgres-engine.js';
import type { SqlEngine } from '../../../src/sql/engine/sql-engine.js';
import { SqliteEngine } from '../../../src/sql/engine/sqlite/sqlite-engine.js';
import { mariadbBinaries, postgresBinaries } from '../../../src/sql/server/server-binaries.js';
import { it } from '../../support/fixtures.js';

const DUMP = parseMysqlDump(`CREATE DATABASE \`shop\`;
USE \`shop\`;
CREATE TABLE \`item\` (\`id\` int NOT NULL AUTO_INCREMENT, \`name\` varchar(20), PRIMARY KEY (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO \`item\` VALUES (1,'pen'),(2,'ink'),(3,'cap'),(4,'nib'),(5,'pad');
CREATE TABLE \`stock\` (\`item_id\` int, \`qty\` int) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO \`stock\` VALUES (1,10),(2,20);
`);

function task(index: number, gold: string): Task {
  return { id: String(index), index, query: `task ${index}`, gold, meta: { db: 'shop' } };
}

/** Golds of three rows and of five (a marker in the text for the activity views), and one that writes. */
const THREE = 0;
const FIVE = 1;
const WRITES = 2;
const DATASET: Dataset = {
  id: 'test/gold-isolation',
  env: 'sql',
  tasks: [
    task(THREE, 'SELECT name FROM item WHERE id <= 3 /* gold-marker */'),
    task(FIVE, 'SELECT name FROM item ORDER BY name /* gold-marker */'),
    task(WRITES, "INSERT INTO item (name) VALUES ('forged') RETURNING name"),
  ],
  assets: {},
};

function installed(find: () => unknown): boolean {
  try {
    find();
    return true;
  } catch {
    return false;
  }
}

interface EngineCase {
  readonly name: string;
  readonly available: boolean;
  start(cache: string): Promise<SqlEngine>;
  /** What the agent's session shows of the statements run on the copy before its first action. */
  readonly probes: readonly string[];
  /** What the agent's session shows of changes made on its connection (a writing gold's). */
  readonly changes: string;
}

const CASES: readonly EngineCase[] = [
  {
    name: 'sqlite',
    available: true,
    start: (cache) => Promise.resolve(new SqliteEngine({ cacheDir: cache })),
    probes: ['SELECT changes(), total_changes(), last_insert_rowid()'],
    changes: 'SELECT changes(), total_changes(), last_insert_rowid()',
  },
  {
    name: 'mysql',
    available: installed(mariadbBinaries),
    start: () => MysqlEngine.start(),
    probes: [
      'SELECT FOUND_ROWS()',
      "SHOW SESSION STATUS WHERE Variable_name IN ('Rows_read', 'Rows_sent', 'Handler_read_rnd_next', 'Handler_read_key', 'Handler_read_first', 'Com_select', 'Select_scan', 'Questions', 'Bytes_sent', 'Last_query_cost')",
      'SELECT count(*) FROM information_schema.PROCESSLIST',
    ],
    changes: 'SELECT ROW_COUNT(), LAST_INSERT_ID()',
  },
  {
    name: 'postgres',
    available: installed(postgresBinaries),
    start: () => PostgresEngine.start(),
    probes: [
      'SELECT coalesce(sum(seq_scan), 0), coalesce(sum(seq_tup_read), 0), coalesce(sum(n_tup_ins), 0) FROM pg_stat_xact_user_tables',
      "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%' || 'gold' || '-marker%'",
    ],
    changes: 'SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_xact_user_tables',
  },
];

const engines: SqlEngine[] = [];
const envs: SqlEnv[] = [];
afterAll(async () => {
  await Promise.all(envs.map((env) => env.close()));
  await Promise.all(engines.map((engine) => engine.close()));
});

for (const c of CASES) {
  describe.skipIf(!c.available)(`the gold query is out of the agent's sight (${c.name})`, () => {
    let engine: SqlEngine;

    it.beforeAll(async ({ cache }) => {
      engine = await c.start(cache);
      engines.push(engine);
      await engine.prepare(DUMP);
    });

    /** A fresh environment (its own session), reset on `index`, then the agent's probes. */
    async function observe(index: number, probes: readonly string[]): Promise<unknown[]> {
      const env = new SqlEnv({ dataset: DATASET, engine });
      envs.push(env);
      await env.reset({ index });
      const seen: unknown[] = [];
      for (const probe of probes) {
        const step = await env.step(probe);
        expect(step.info.admissible, `${probe}: ${step.observation.text}`).toBe(true);
        seen.push(step.observation.rows);
      }
      await env.close();
      return seen;
    }

    it('golds of 3 and of 5 rows leave the same traces in the session (none)', async () => {
      const three = await observe(THREE, c.probes);
      const five = await observe(FIVE, c.probes);
      expect(five).toEqual(three);
      if (c.name === 'postgres') {
        const [xact] = three as unknown[][][];
        expect(xact?.[0]?.map(Number)).toEqual([0, 0, 0]);
      }
      if (c.name === 'mysql') {
        const [foundRows] = three as unknown[][][];
        expect(foundRows?.[0]?.[0]).toBe(0);
      }
    });

    // Cumulative per-table statistics are PostgreSQL's (pg_stat_*); the other engines have none.
    if (c.name === 'postgres')
      it("the gold's scans never reach the copy's cumulative statistics", async () => {
        const env = new SqlEnv({ dataset: DATASET, engine });
        envs.push(env);
        await env.reset({ index: FIVE });
        // A backend reports its counters when idle, at most once a second.
        await sleep(1_500);
        const step = await env.step(
          'SELECT coalesce(sum(seq_scan), 0) + coalesce(sum(idx_scan), 0) FROM pg_stat_user_tables',
        );
        expect(Number(step.observation.rows?.[0]?.[0])).toBe(0);
      });

    // After reads only, a server engine runs the next gold while the session's connection is reset.
    it('every episode of an environment starts pristine, its gold too, after reads and after writes', async () => {
      const env = new SqlEnv({ dataset: DATASET, engine });
      envs.push(env);
      const goldScore = async (index: number): Promise<number> => {
        await env.step(DATASET.tasks[index]?.gold as string);
        return (await env.score()).value;
      };
      await env.reset({ index: FIVE });
      expect(await goldScore(FIVE)).toBe(1);
      if (c.name === 'mysql') expect((await env.step('SELECT @seen := 7')).info.admissible).toBe(true);
      await env.reset({ index: THREE });
      if (c.name === 'mysql') expect((await env.step('SELECT @seen')).observation.rows).toEqual([[null]]);
      // A change the other connections see at once on MariaDB (TRUNCATE commits).
      const wipe = c.name === 'sqlite' ? 'DELETE FROM item' : 'TRUNCATE TABLE item';
      expect((await env.step(wipe)).info.admissible).toBe(true);
      await env.reset({ index: THREE });
      expect(await goldScore(THREE)).toBe(1);
      const count = await env.step('SELECT count(*) FROM item');
      expect(Number(count.observation.rows?.[0]?.[0])).toBe(5);
    });

    it('a gold that writes leaves the database pristine and is flagged corrupt', async () => {
      const env = new SqlEnv({ dataset: DATASET, engine });
      envs.push(env);
      await env.reset({ index: WRITES });
      const changes = await env.step(c.changes);
      expect(changes.info.admissible).toBe(true);
      const counters = (changes.observation.rows?.[0] ?? []) as unknown[];
      expect(counters.every((value) => Number(value) <= 0)).toBe(true);
      const count = await env.step('SELECT count(*) FROM item');
      expect(Number(count.observation.rows?.[0]?.[0])).toBe(5);
      const score = await env.score();
      expect(score.goldCorrupt).toBe(true);
    });
  });
}
