import { describe, expect, it } from 'vitest';
import { splitStatements } from '../../../src/sql/dump/split-statements.js';

function texts(sql: string, dialect: 'mysql' | 'sqlite' | 'postgres' = 'sqlite'): string[] {
  return splitStatements(sql, dialect).map((statement) => statement.text);
}

describe('splitStatements', () => {
  it('splits at top-level semicolons only', () => {
    expect(texts('SELECT \'a;b\'; SELECT "c;d" -- e;f\n; ;')).toEqual(["SELECT 'a;b'", 'SELECT "c;d"']);
  });

  it('drops blank and comment-only statements, keeps a last statement without `;`', () => {
    const statements = splitStatements('-- only a comment;\n/* x; */;\nSELECT 1', 'sqlite');
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({ text: 'SELECT 1', line: 3, terminated: false });
  });

  it('keeps MySQL conditional comments as statements (they are code to MySQL)', () => {
    const statements = splitStatements('/*!40101 SET NAMES utf8 */;\nSELECT 1;', 'mysql');
    expect(statements.map((statement) => statement.text)).toEqual(['/*!40101 SET NAMES utf8 */', 'SELECT 1']);
    expect(statements[0]?.tokens[0]?.kind).toBe('conditional-comment');
  });

  it('follows the dialect: a MySQL backslash escape hides a `;` that SQLite sees', () => {
    const sql = String.raw`SELECT 'a\'; SELECT 2; -- '`;
    expect(texts(sql, 'mysql')).toHaveLength(1);
    expect(texts(sql, 'sqlite')).toHaveLength(2);
  });

  it('keeps the body of a trigger together until END;', () => {
    const sql =
      'CREATE TRIGGER t AFTER INSERT ON a BEGIN INSERT INTO b VALUES (1); UPDATE c SET x = 1; END; SELECT 1';
    expect(texts(sql)).toEqual([
      'CREATE TRIGGER t AFTER INSERT ON a BEGIN INSERT INTO b VALUES (1); UPDATE c SET x = 1; END',
      'SELECT 1',
    ]);
    expect(texts('BEGIN; SELECT 1; END;')).toEqual(['BEGIN', 'SELECT 1', 'END']);
  });

  it('keeps PostgreSQL dollar-quoted function bodies together', () => {
    const sql = 'CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; SELECT 2; $$ LANGUAGE sql; SELECT f()';
    expect(texts(sql, 'postgres')).toHaveLength(2);
  });
});
