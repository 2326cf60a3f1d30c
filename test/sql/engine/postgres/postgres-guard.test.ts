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
    'VACUUM',
    "COPY t FROM '/etc/passwd'",
    "COPY t FROM PROGRAM 'id'",
    'COPY (SELECT 1) TO STDOUT',
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT pg_read_binary_file('/etc/passwd')",
    "SELECT * FROM pg_ls_dir('/')",
    "SELECT lo_import('/etc/passwd')",
    "SELECT lo_export(1, '/tmp/x')",
    "DO $$ BEGIN PERFORM pg_read_file('/etc/passwd'); END $$",
    "SELECT set_config('role', 'postgres', false)",
    'SELECT pg_terminate_backend(1)',
    'GRANT ALL ON t TO public',
    'REVOKE ALL ON t FROM public',
    'CREATE ROLE x',
    'ALTER ROLE CURRENT_USER SET search_path = x',
    'ALTER USER x WITH SUPERUSER',
    'SET ROLE postgres',
    'SET SESSION AUTHORIZATION postgres',
    'CREATE DATABASE x',
    'DROP DATABASE concert_singer',
    'CREATE EXTENSION dblink',
    'ALTER SYSTEM SET fsync = on',
    "LOAD 'auto_explain'",
    'CHECKPOINT',
    'CREATE SERVER s FOREIGN DATA WRAPPER w',
    'ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO public',
  ])('refuses %s', (sql) => {
    expect(check(sql).refusal).toBeTruthy();
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
