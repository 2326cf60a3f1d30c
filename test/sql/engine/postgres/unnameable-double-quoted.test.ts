import { describe, expect, it } from 'vitest';
import { unnameableDoubleQuoted } from '../../../../src/sql/engine/postgres/unnameable-double-quoted.js';

// The names of a pristine database (lower case, as the PostgreSQL engine builds them).
const known = new Set(['singer', 'name', 'country', 'age']);
const rewrite = (sql: string) => unnameableDoubleQuoted(sql, known);

describe('unnameableDoubleQuoted', () => {
  it('turns double-quoted names that can name nothing into strings', () => {
    expect(rewrite('SELECT name FROM singer WHERE country = "France"')).toBe(
      "SELECT name FROM singer WHERE country = 'France'",
    );
    expect(rewrite('SELECT name FROM singer WHERE country IN ("France", "it\'s") OR name LIKE "%a%"')).toBe(
      "SELECT name FROM singer WHERE country IN ('France', 'it''s') OR name LIKE '%a%'",
    );
    expect(rewrite('SELECT "x", count(*) FROM singer GROUP BY "x" ORDER BY age')).toBe(
      "SELECT 'x', count(*) FROM singer GROUP BY 'x' ORDER BY age",
    );
  });

  it('keeps what may name something for PostgreSQL to decide', () => {
    for (const sql of [
      'SELECT name FROM singer', // nothing double-quoted
      'SELECT name FROM singer WHERE "country" = 1', // a column
      'SELECT "Name" FROM singer', // a column in another case
      'SELECT count(*) "n" FROM singer ORDER BY "n"', // an alias without AS
      'SELECT age AS "years" FROM singer ORDER BY "years"', // an alias with AS
      'SELECT years FROM (SELECT age AS years FROM singer) t WHERE "years" > 1', // a name written bare elsewhere
      'SELECT "t".name FROM singer t', // a qualifier
      'SELECT "lower"(name) FROM singer', // a function
      'SELECT 1::"int4"', // a type
      'SELECT "ctid" FROM singer', // a system column
      'SELECT * FROM information_schema.columns WHERE table_name = "singer"', // the system's catalogues
      'SELECT * FROM pg_catalog.pg_class WHERE relname = "x"',
      'WITH t(a) AS (SELECT 1) SELECT "a" FROM t', // a CTE's columns
      'SELECT "b" FROM generate_series(1, 2) AS g(b)', // an alias's columns
      'SELECT name FROM singer s "x"', // after a name: an alias
    ]) {
      expect(rewrite(sql), sql).toBeUndefined();
    }
  });

  it('rewrites the free names of a statement and leaves the others', () => {
    expect(rewrite('SELECT "age" FROM singer WHERE name = "Joe" ORDER BY "age"')).toBe(
      'SELECT "age" FROM singer WHERE name = \'Joe\' ORDER BY "age"',
    );
    // One occurrence in a name's place keeps every occurrence of that text a name.
    expect(rewrite('SELECT count(*) "n" FROM singer WHERE country = "n"')).toBeUndefined();
  });
});
