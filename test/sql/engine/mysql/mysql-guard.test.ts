import { describe, expect, it } from 'vitest';
import { splitStatements } from '../../../../src/sql/dump/split-statements.js';
import { checkMysqlStatement } from '../../../../src/sql/engine/mysql/mysql-guard.js';

function check(sql: string) {
  const [statement] = splitStatements(sql, 'mysql');
  if (!statement) throw new Error('no statement');
  return checkMysqlStatement(statement);
}

describe('checkMysqlStatement', () => {
  it.each([
    "SET PASSWORD = PASSWORD('x')",
    "ALTER USER CURRENT_USER IDENTIFIED BY 'x'",
    'CREATE DATABASE other',
    'DROP DATABASE concert_singer',
    'DROP SCHEMA IF EXISTS x',
    'ALTER DATABASE concert_singer CHARACTER SET latin1',
    "PREPARE s FROM 'SELECT LOAD_FILE(1)'",
    'EXECUTE s',
    'XA START 1',
    'COMMIT RELEASE',
    'ROLLBACK AND NO CHAIN RELEASE',
    'SET completion_type = 2',
    "SELECT GET_LOCK('x', 10)",
    "/*!50000 SELECT GET_LOCK('x', 10) */",
    "SET STATEMENT max_statement_time=1 FOR SELECT GET_LOCK('x', 10)",
  ])('refuses %s (no privilege can deny it)', (sql) => {
    expect(check(sql).refusal).toBeTruthy();
  });

  // The session account's privileges deny these on the server (mysql-privileges.test.ts).
  it.each([
    "SELECT LOAD_FILE('/etc/passwd')",
    "SELECT * FROM t INTO OUTFILE '/tmp/x'",
    "LOAD DATA INFILE '/etc/passwd' INTO TABLE t",
    "GRANT ALL ON *.* TO 'x'@'%'",
    "CREATE USER 'x'@'%'",
    'SET GLOBAL max_connections = 1',
    'SHUTDOWN',
    'KILL 1',
    'FLUSH PRIVILEGES',
    "INSTALL PLUGIN x SONAME 'x.so'",
    'START SLAVE',
  ])('leaves %s to the server', (sql) => {
    expect(check(sql).refusal).toBeUndefined();
  });

  it.each([
    ['SELECT * FROM singer', 'read'],
    ['(SELECT 1) UNION (SELECT 2)', 'read'],
    ['WITH x AS (SELECT 1) SELECT * FROM x', 'read'],
    ['SHOW TABLES', 'read'],
    ['DESCRIBE singer', 'read'],
    ['EXPLAIN SELECT 1', 'read'],
    ['SELECT a INTO @v FROM t', 'read'],
    ['SET @x = 1', 'read'],
    ["SET NAMES 'utf8mb4'", 'read'],
    ['CREATE TEMPORARY TABLE t (a int)', 'read'],
    ['ROLLBACK', 'read'],
    ['COMMIT NO RELEASE', 'commit'],
    ['INSERT INTO t VALUES (1)', 'write'],
    ['UPDATE t SET a = 1', 'write'],
    ['DELETE FROM t', 'write'],
    ['REPLACE INTO t VALUES (1)', 'write'],
    ['WITH x AS (SELECT 1) UPDATE t SET a = 1', 'write'],
    ['COMMIT', 'commit'],
    ['BEGIN', 'commit'],
    ['START TRANSACTION', 'commit'],
    ['SET autocommit = 1', 'other'],
    ['CREATE TABLE t (a int)', 'other'],
    ['DROP TABLE singer', 'other'],
    ['ALTER TABLE singer ADD COLUMN x int', 'other'],
    ['TRUNCATE singer', 'other'],
    ['ANALYZE TABLE singer', 'other'],
    ['ANALYZE UPDATE t SET a = 1', 'write'],
    ['EXPLAIN ANALYZE SELECT 1', 'read'],
    ['SELECT NEXTVAL(s)', 'other'],
    ['LOCK TABLES t WRITE', 'other'],
    ['FROBNICATE everything', 'other'],
  ])('%s is %s', (sql, kind) => {
    const verdict = check(sql);
    expect(verdict.refusal).toBeUndefined();
    expect(verdict.kind).toBe(kind);
  });

  it('reports the database of USE and the names a statement mentions', () => {
    expect(check('USE `Concert_Singer`').use).toBe('Concert_Singer');
    expect(check('UPDATE Singer s JOIN concert c ON s.id = c.id SET s.age = 1').names).toEqual(
      expect.arrayContaining(['singer', 'concert', 's', 'c']),
    );
  });
});
