import { describe, expect, it } from 'vitest';
import { splitStatements } from '../../../src/sql/dump/split-statements.js';
import { type QualifiedNames, qualifiedWithCopy } from '../../../src/sql/engine/qualified-with-copy.js';

function rewrite(
  sql: string,
  engine: QualifiedNames,
  shown = 'singer',
  copy = 'singer__2',
): string | undefined {
  // A leading statement shifts the offsets: the rewrite must use the statement's own.
  const statements = splitStatements(`SELECT 1; ${sql}`, engine);
  return qualifiedWithCopy(statements[1]!, shown, copy, engine);
}

describe('qualifiedWithCopy', () => {
  it('MySQL: the database qualifier of a table in its place, of a three-part column, of SHOW … FROM', () => {
    expect(rewrite('SELECT Name FROM singer.singer WHERE Age > 20', 'mysql')).toBe(
      'SELECT Name FROM `singer__2`.singer WHERE Age > 20',
    );
    expect(rewrite('SELECT a.x FROM t a JOIN `Singer`.concert c ON a.id = c.id', 'mysql')).toBe(
      'SELECT a.x FROM t a JOIN `singer__2`.concert c ON a.id = c.id',
    );
    expect(rewrite('DESCRIBE singer.singer', 'mysql')).toBe('DESCRIBE `singer__2`.singer');
    expect(rewrite('UPDATE singer.singer SET Age = 1', 'mysql')).toBe(
      'UPDATE `singer__2`.singer SET Age = 1',
    );
    expect(rewrite('SELECT singer.singer.Name FROM singer', 'mysql')).toBe(
      'SELECT `singer__2`.singer.Name FROM singer',
    );
    expect(rewrite('SHOW TABLES FROM singer', 'mysql')).toBe('SHOW TABLES FROM `singer__2`');
  });

  it('MySQL: leaves a table named like the database, strings, other databases and the first copy alone', () => {
    expect(rewrite('SELECT singer.Name FROM singer ORDER BY singer.Age', 'mysql')).toBeUndefined();
    expect(rewrite("SELECT 'singer.singer' FROM singer", 'mysql')).toBeUndefined();
    expect(rewrite('SELECT * FROM concert_singer.singer', 'mysql')).toBeUndefined();
    expect(rewrite('SELECT * FROM x.singer.singer', 'mysql')).toBeUndefined();
    expect(rewrite('SELECT * FROM singer.singer', 'mysql', 'singer', 'singer')).toBeUndefined();
  });

  it('PostgreSQL: only catalog.schema.table in a table place (two parts there are schema and table)', () => {
    expect(rewrite('SELECT count(*) FROM singer.public.singer', 'postgres')).toBe(
      'SELECT count(*) FROM singer__2.public.singer',
    );
    expect(rewrite('SELECT * FROM singer.singer', 'postgres')).toBeUndefined();
    expect(rewrite('SELECT singer.public.x FROM t', 'postgres')).toBeUndefined();
    // A copy name that is not a plain lower-case word is quoted.
    expect(rewrite('SELECT 1 FROM singer.public.singer', 'postgres', 'singer', 'Ic-1')).toBe(
      'SELECT 1 FROM "Ic-1".public.singer',
    );
  });
});
