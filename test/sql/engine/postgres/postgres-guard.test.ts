import { describe, expect, it } from 'vitest';
import { splitStatements } from '../../../../src/sql/dump/split-statements.js';
import { checkPostgresStatement } from '../../../../src/sql/engine/postgres/postgres-guard.js';

function check(sql: string) {
  const [statement] = splitStatements(sql, 'postgres');
  if (!statement) throw new Error('no statement');
  return checkPostgresStatement(statement);
}

describe('checkPostgresStatement', () => {
  it.each([
    'BEGIN',
    'START TRANSACTION',
    'COMMIT',
    'END',
    'ROLLBACK',
    'ABORT',
    'SAVEPOINT a',
    'RELEASE SAVEPOINT a',
    "PREPARE TRANSACTION 'x'",
    'COPY t FROM STDIN',
  ])('refuses %s (it would break the session)', (sql) => {
    expect(check(sql).refusal).toBeTruthy();
  });

  // The session role's privileges stop these on the server (postgres-privileges.test.ts): a word
  // filter would only be theatre, since a DO block can build any word at run time.
  it.each([
    'VACUUM',
    "COPY t FROM '/etc/passwd'",
    "COPY t FROM PROGRAM 'id'",
    'COPY (SELECT 1) TO STDOUT',
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT lo_import('/etc/passwd')",
    "DO $$ BEGIN PERFORM pg_read_file('/etc/passwd'); END $$",
    "SELECT set_config('role', 'postgres', false)",
    'SELECT pg_terminate_backend(1)',
    'GRANT ALL ON t TO public',
    'CREATE ROLE x',
    'SET ROLE postgres',
    'SET SESSION AUTHORIZATION postgres',
    'CREATE DATABASE x',
    'CREATE EXTENSION dblink',
    'ALTER SYSTEM SET fsync = on',
    "LOAD 'auto_explain'",
    'CHECKPOINT',
  ])('leaves %s to the server', (sql) => {
    expect(check(sql).refusal).toBeUndefined();
  });

  it.each([
    ['SELECT * FROM singer', true],
    ['(SELECT 1) UNION (SELECT 2)', true],
    ['VALUES (1), (2)', true],
    ['TABLE singer', true],
    ['WITH x AS (SELECT 1) SELECT * FROM x', true],
    ['WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x', false],
    ['SELECT 1 INTO t2', false],
    ['SELECT * FROM t FOR UPDATE', false],
    ['INSERT INTO t VALUES (1) RETURNING *', false],
    ['EXPLAIN SELECT 1', false],
    ['SHOW search_path', false],
    ['CREATE TABLE t (a int)', false],
    ['SET search_path = public', false],
  ])('%s runs (cursor: %s)', (sql, cursor) => {
    const verdict = check(sql);
    expect(verdict.refusal).toBeUndefined();
    expect(verdict.cursor).toBe(cursor);
  });

  it('reports the database of USE', () => {
    expect(check('USE concert_singer').use).toBe('concert_singer');
  });
});
