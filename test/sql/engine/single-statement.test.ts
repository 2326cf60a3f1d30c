import { describe, expect, it } from 'vitest';
import { singleStatement } from '../../../src/sql/engine/single-statement.js';

/** One statement in MySQL (`\'` escapes the quote), two in SQLite and PostgreSQL (no backslash escapes). */
const BACKSLASH = "SELECT 'a\\'; SELECT 2'";

describe('singleStatement', () => {
  it('gives each dialect its own verdict on the same text, however often and in whatever order it is asked', () => {
    const verdicts = (order: readonly ('mysql' | 'sqlite')[]) =>
      order.map((dialect) => [dialect, singleStatement(BACKSLASH, dialect).ok] as const);
    const expected = { mysql: true, sqlite: false };
    for (const order of [
      ['mysql', 'sqlite', 'mysql', 'sqlite'],
      ['sqlite', 'sqlite', 'mysql', 'mysql'],
    ] as const) {
      for (const [dialect, ok] of verdicts(order)) expect(ok).toBe(expected[dialect]);
    }
  });

  it('gives the same statement again for a text checked before, also after many other texts', () => {
    const first = singleStatement('SELECT name FROM singer WHERE age > 20', 'sqlite');
    for (let i = 0; i < 100; i++) singleStatement(`SELECT ${i}`, 'sqlite');
    const again = singleStatement('SELECT name FROM singer WHERE age > 20', 'sqlite');
    expect(again).toEqual(first);
    expect(again.ok && again.statement.text).toBe('SELECT name FROM singer WHERE age > 20');
    const long = `SELECT '${'x'.repeat(20_000)}'`;
    expect(singleStatement(long, 'sqlite')).toEqual(singleStatement(long, 'sqlite'));
    expect(singleStatement('SELECT 1; SELECT 2', 'sqlite')).toMatchObject({ ok: false });
    expect(singleStatement('   ', 'sqlite')).toMatchObject({ ok: false });
  });
});
