import { describe, expect, it } from 'vitest';
import { doubleQuotedAsString } from '../../../../src/sql/engine/double-quoted-as-string.js';
import { singleStatement } from '../../../../src/sql/engine/single-statement.js';
import { unresolvedDoubleQuoted } from '../../../../src/sql/engine/sqlite/sqlite-double-quoted-strings.js';
import { sqliteRefusal } from '../../../../src/sql/engine/sqlite/sqlite-guard.js';

function refusal(sql: string): string | undefined {
  const check = singleStatement(sql, 'sqlite');
  if (!check.ok) throw new Error(check.message);
  return sqliteRefusal(check.statement);
}

describe('singleStatement', () => {
  it('accepts one statement, with or without a final semicolon and comments', () => {
    expect(singleStatement('SELECT 1;', 'sqlite').ok).toBe(true);
    expect(singleStatement("-- hi\nSELECT ';' /* ; */ ;  ", 'sqlite').ok).toBe(true);
  });

  it('refuses several statements and empty queries with engine-neutral codes', () => {
    expect(singleStatement('SELECT 1; SELECT 2', 'sqlite')).toEqual({
      ok: false,
      message: 'one statement per action: the query holds 2 statements',
      code: 'MULTIPLE_STATEMENTS',
    });
    expect(singleStatement(' -- nothing\n ; ', 'postgres')).toMatchObject({ ok: false, code: 'EMPTY_QUERY' });
  });
});

describe('sqliteRefusal', () => {
  it.each([
    ["ATTACH DATABASE '/tmp/x.db' AS x", /ATTACH is not allowed/],
    ["attach 'file:x?mode=memory' as y", /ATTACH is not allowed/],
    ['DETACH x', /DETACH is not allowed/],
    ["EXPLAIN QUERY PLAN ATTACH 'x' AS y", /ATTACH is not allowed/],
    ["VACUUM INTO '/tmp/copy.db'", /VACUUM INTO is not allowed/],
    ['PRAGMA hard_heap_limit = 1', /PRAGMA hard_heap_limit is not allowed/],
    ['PRAGMA writable_schema = ON', /PRAGMA writable_schema is not allowed/],
    ["PRAGMA temp_store_directory = '/tmp'", /not allowed/],
    ['PRAGMA other.table_info(t)', /PRAGMA on schema other is not allowed/],
    ['PRAGMA optimize', /PRAGMA optimize is not allowed/],
  ])('refuses %s', (sql, message) => {
    expect(refusal(sql)).toMatch(message);
  });

  it.each([
    'SELECT * FROM t',
    "SELECT 'attach' AS load_extension_text, 'load_extension' FROM t",
    "SELECT load_extension('/tmp/evil.so')",
    'PRAGMA table_info(museum)',
    'PRAGMA main.index_list("museum")',
    'PRAGMA foreign_keys = ON',
    'PRAGMA journal_mode',
    'VACUUM',
    'CREATE TABLE attach_me (x)',
  ])('allows %s', (sql) => {
    expect(refusal(sql)).toBeUndefined();
  });
});

describe('double-quoted strings', () => {
  it('recognises SQLite’s error for a double-quoted non-column', () => {
    expect(
      unresolvedDoubleQuoted(
        'no such column: "US Territory" - should this be a string literal in single-quotes?',
      ),
    ).toBe('US Territory');
    expect(unresolvedDoubleQuoted('no such column: x')).toBeUndefined();
  });

  it('rewrites exactly the double-quoted names with that text', () => {
    expect(
      doubleQuotedAsString(
        `SELECT "a" FROM t WHERE x = "it's" OR y = "a" OR z = 'a' OR "b" = 1`,
        'a',
        'sqlite',
      ),
    ).toBe(`SELECT 'a' FROM t WHERE x = "it's" OR y = 'a' OR z = 'a' OR "b" = 1`);
    expect(doubleQuotedAsString(`SELECT * FROM t WHERE x = "it's"`, "it's", 'sqlite')).toBe(
      `SELECT * FROM t WHERE x = 'it''s'`,
    );
    expect(doubleQuotedAsString('SELECT `a` FROM t', 'a', 'sqlite')).toBeUndefined();
  });
});
