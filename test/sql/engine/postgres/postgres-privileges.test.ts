/**
 * Hostile class (issue 11, SQL): PostgreSQL's word filter was theatre, bypassed by building the
 * words at run time (`EXECUTE 'SELECT pg_read' || '_file(…)'`); only the role's privileges held.
 * The filter is gone (the guard refuses transaction control and `COPY … FROM STDIN` only, which are
 * the session's protocol): each item it listed is stopped by the server, as written and as built
 * at run time, with the server's own code (42501: insufficient privilege, or the like), never
 * `FORBIDDEN_STATEMENT`. What PUBLIC may do by default but reaches beyond the database is revoked in
 * the templates (the WAL message function, advisory locks), and a backend's memory is bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMysqlDump } from '../../../../src/sql/dump/parse-mysql-dump.js';
import { PostgresEngine } from '../../../../src/sql/engine/postgres/postgres-engine.js';
import { QUERY_ERROR, type SqlSession } from '../../../../src/sql/engine/sql-engine.js';
import type { PostgresServer } from '../../../../src/sql/server/postgres-server.js';
import { postgresBinaries } from '../../../../src/sql/server/server-binaries.js';

const DUMP = parseMysqlDump(`CREATE DATABASE \`shop\`;
USE \`shop\`;
CREATE TABLE \`item\` (\`id\` int NOT NULL AUTO_INCREMENT, \`name\` varchar(20), PRIMARY KEY (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO \`item\` VALUES (1,'pen'),(2,'ink');
`);

function installed(): boolean {
  try {
    postgresBinaries();
    return true;
  } catch {
    return false;
  }
}

/** SQLSTATEs of the server's refusals. */
const DENIED = '42501';
const NO_TRANSACTION_BLOCK = '25001';
const UNDEFINED_FUNCTION = '42883';
const UNDEFINED_OBJECT = '42704';

/** Each item the old word filter refused, and the server's own answer to it. */
const STOPPED_BY_THE_SERVER: readonly (readonly [string, string])[] = [
  ["COPY item FROM '/etc/passwd'", DENIED],
  ["COPY item TO '/tmp/intercode-leak'", DENIED],
  ["COPY (SELECT 1) TO PROGRAM 'id'", DENIED],
  ["COPY item FROM PROGRAM 'id'", DENIED],
  ["SELECT pg_read_file('/etc/passwd')", DENIED],
  ["SELECT pg_read_binary_file('/etc/passwd')", DENIED],
  ["SELECT * FROM pg_ls_dir('.')", DENIED],
  ["SELECT pg_stat_file('/etc/passwd')", DENIED],
  ["SELECT lo_import('/etc/passwd')", DENIED],
  ["SELECT lo_export(lo_creat(-1), '/tmp/intercode-leak')", DENIED],
  ["SELECT dblink_connect('dbname=postgres')", UNDEFINED_FUNCTION],
  ['CREATE EXTENSION dblink', DENIED],
  ['CREATE EXTENSION pgcrypto', DENIED],
  ["CREATE FUNCTION f() RETURNS int LANGUAGE c AS 'libc', 'getpid'", DENIED],
  ['CREATE ROLE intruder', DENIED],
  ['ALTER ROLE CURRENT_USER SUPERUSER', DENIED],
  ['SET ROLE postgres', DENIED],
  ['SET SESSION AUTHORIZATION postgres', DENIED],
  ["SELECT set_config('role', 'postgres', false)", DENIED],
  ['ALTER DATABASE shop CONNECTION LIMIT 1', DENIED],
  ['CREATE DATABASE intruder', NO_TRANSACTION_BLOCK],
  ['DROP DATABASE shop', NO_TRANSACTION_BLOCK],
  ["CREATE TABLESPACE t LOCATION '/tmp'", NO_TRANSACTION_BLOCK],
  ['ALTER SYSTEM SET fsync = on', NO_TRANSACTION_BLOCK],
  ['VACUUM', NO_TRANSACTION_BLOCK],
  ['SELECT * FROM pg_authid', DENIED],
  ["LOAD 'auto_explain'", DENIED],
  ['CHECKPOINT', DENIED],
  ['SELECT pg_reload_conf()', DENIED],
  ['SELECT pg_rotate_logfile()', DENIED],
  ['SELECT pg_switch_wal()', DENIED],
  ["SELECT pg_create_restore_point('x')", DENIED],
  ['SELECT pg_current_logfile()', DENIED],
  ["SELECT pg_backup_start('x')", DENIED],
  ["SELECT pg_create_physical_replication_slot('x')", DENIED],
  ["SELECT pg_replication_origin_create('x')", DENIED],
  ["SELECT pg_import_system_collations('pg_catalog')", DENIED],
  ["SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'postgres'", DENIED],
  ["SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE usename = 'postgres'", DENIED],
  ['CREATE PUBLICATION p FOR ALL TABLES', DENIED],
  ['CREATE EVENT TRIGGER e ON ddl_command_start EXECUTE FUNCTION f()', DENIED],
  ['CREATE FOREIGN DATA WRAPPER w', DENIED],
  ['CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw', UNDEFINED_OBJECT],
  // Open to PUBLIC by default, revoked in the templates.
  ["SELECT pg_logical_emit_message(false, 'a', 'b')", DENIED],
  ['SELECT pg_advisory_lock(1)', DENIED],
  ['SELECT pg_try_advisory_xact_lock(1)', DENIED],
];

/** `DO` blocks that build each word at run time: the old filter's blind spot. */
function builtAtRunTime(sql: string): string {
  const middle = Math.floor(sql.length / 2);
  const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;
  const inner = `${quoted(sql.slice(0, middle))} || ${quoted(sql.slice(middle))}`;
  return `DO $$ BEGIN EXECUTE ${inner.replaceAll('$$', '')}; END $$`;
}

describe.skipIf(!installed())('PostgreSQL: the session role is the barrier, not a word filter', () => {
  let engine: PostgresEngine;
  let session: SqlSession;
  const limits = { timeoutMs: 20_000, maxRows: 10 };

  beforeAll(async () => {
    engine = await PostgresEngine.start();
    await engine.prepare(DUMP);
    session = await engine.open('shop');
  });
  afterAll(async () => {
    await engine?.close();
  });

  it.each(STOPPED_BY_THE_SERVER)('the server stops %s (%s)', async (sql, code) => {
    const outcome = await session.query(sql, limits);
    expect(outcome.kind).toBe('error');
    if (outcome.kind !== 'error') return;
    expect(outcome.code, outcome.message).not.toBe(QUERY_ERROR.forbidden);
    expect(outcome.code, outcome.message).toBe(code);
  });

  it.each(STOPPED_BY_THE_SERVER.filter(([sql, code]) => code === DENIED && !sql.startsWith('SET ')))(
    'the server stops %s built at run time',
    async (sql) => {
      const outcome = await session.query(builtAtRunTime(sql), limits);
      expect(outcome.kind).toBe('error');
      if (outcome.kind !== 'error') return;
      expect(outcome.code, outcome.message).toBe(DENIED);
    },
  );

  it('refuses only what breaks the session: transaction control and COPY FROM STDIN', async () => {
    for (const sql of [
      'BEGIN',
      'COMMIT',
      'ROLLBACK',
      'SAVEPOINT s',
      "PREPARE TRANSACTION 'x'",
      'COPY item FROM STDIN',
    ]) {
      const outcome = await session.query(sql, limits);
      expect(outcome.kind === 'error' && outcome.code, sql).toBe(QUERY_ERROR.forbidden);
    }
    expect((await session.query('COPY (SELECT 1) TO STDOUT', limits)).kind).toBe('ok');
  });

  it('a backend that raises work_mem runs out of its own memory, not the host', async () => {
    expect((await session.query("SET work_mem = '64GB'", limits)).kind).toBe('ok');
    const outcome = await session.query(
      'SELECT x FROM generate_series(1, 200000000) x ORDER BY x DESC LIMIT 1',
      { timeoutMs: 60_000, maxRows: 1 },
    );
    expect(outcome.kind === 'error' && outcome.code).toBe('53200');
    const server = (await engine.server()) as PostgresServer;
    expect(server.alive).toBe(true);
    await session.reset();
    const count = await session.query('SELECT count(*) FROM item', limits);
    expect(count.kind === 'rows' && Number(count.rows[0]?.[0])).toBe(2);
  });
});
