/**
 * The PostgreSQL session's reset after an episode that only read takes one round trip instead of
 * three (no `DISCARD ALL`): what a query can leave behind must still be gone at the next episode.
 */
import { afterAll, describe, expect } from 'vitest';
import { parseMysqlDump } from '../../../../src/sql/dump/parse-mysql-dump.js';
import { PostgresEngine } from '../../../../src/sql/engine/postgres/postgres-engine.js';
import type { QueryOutcome, SqlSession } from '../../../../src/sql/engine/sql-engine.js';
import { postgresBinaries } from '../../../../src/sql/server/server-binaries.js';
import { it } from '../../../support/fixtures.js';
import { describeMissing } from '../../../support/skip-if-missing.js';

const DUMP = parseMysqlDump(`CREATE DATABASE \`tiny\`;
USE \`tiny\`;
CREATE TABLE \`t\` (\`id\` int NOT NULL AUTO_INCREMENT, \`name\` varchar(10), PRIMARY KEY (\`id\`)) ENGINE=InnoDB;
INSERT INTO \`t\` VALUES (1,'a'),(2,'b');
`);

const LIMITS = { timeoutMs: 10_000, maxRows: 100 };
const SEQUENCE = "pg_get_serial_sequence('t', 'id')";

/** Why PostgreSQL cannot run here (its binaries are missing), or undefined. */
function missing(): string | undefined {
  try {
    postgresBinaries();
    return undefined;
  } catch (error) {
    return `PostgreSQL is not installed: ${(error as Error).message}`;
  }
}

function value(outcome: QueryOutcome): unknown {
  if (outcome.kind !== 'rows') throw new Error(`expected rows, got ${JSON.stringify(outcome)}`);
  return outcome.rows[0]?.[0];
}

let engine: PostgresEngine | undefined;
afterAll(async () => {
  await engine?.close();
});

const TITLE = 'PostgreSQL reset after an episode that only read';
const absent = missing();
if (absent) describeMissing(TITLE, absent);
else
  describe(TITLE, () => {
    it('leaves no sequence position, setting or counter of the reads behind', async () => {
      engine = await PostgresEngine.start();
      await engine.prepare(DUMP);
      const session: SqlSession = await engine.open('tiny');
      const fresh = value(await session.query("SELECT current_setting('application_name')", LIMITS));
      // Reads only (each runs as a cursor), but with functions that change session state.
      expect(Number(value(await session.query(`SELECT nextval(${SEQUENCE})`, LIMITS)))).toBe(3);
      expect(
        value(await session.query("SELECT set_config('application_name', 'agent', false)", LIMITS)),
      ).toBe('agent');
      expect(session.referenceDuringReset?.()).toBe(true);
      await session.reset();
      const currval = await session.query(`SELECT currval(${SEQUENCE})`, LIMITS);
      expect(currval).toMatchObject({ kind: 'error', code: '55000' });
      expect(value(await session.query("SELECT current_setting('application_name')", LIMITS))).toBe(fresh);
      // The sequence itself is back: the next row gets the pristine next id.
      const insert = await session.query("INSERT INTO t (name) VALUES ('c') RETURNING id", LIMITS);
      expect(Number(value(insert))).toBe(3);
      expect(session.referenceDuringReset?.()).toBe(false);
      await session.reset();
      expect(Number(value(await session.query('SELECT count(*) FROM t', LIMITS)))).toBe(2);
      await session.close();
    });
  });
