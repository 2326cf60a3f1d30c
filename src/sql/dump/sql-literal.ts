import type { SqlDialect } from './sql-dialect.js';

/**
 * A value exactly as a dump writes it, so that every engine can convert it faithfully:
 * - `null`: `NULL`;
 * - `integer`: `42`, `-3` (text, so that 64-bit values survive);
 * - `decimal`: `12.50`, `-0.5` (a fixed-point literal; its scale is kept in the text);
 * - `float`: `1.5e3` (a literal with an exponent);
 * - `string`: `'O\'Reilly'` gives `O'Reilly` (quotes removed, escapes resolved);
 * - `bytes`: `X'0A1B'` or `0x0A1B` gives the hex digits `0A1B`.
 */
export type SqlLiteral =
  | { readonly kind: 'null' }
  | { readonly kind: 'integer'; readonly text: string }
  | { readonly kind: 'decimal'; readonly text: string }
  | { readonly kind: 'float'; readonly text: string }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'bytes'; readonly hex: string };

/** The one `NULL` literal. */
export const NULL_LITERAL: SqlLiteral = Object.freeze({ kind: 'null' });

/** The literal of a number as written (`-12`, `3.50`, `1e5`), or undefined when it is not one. */
export function numberLiteral(text: string): SqlLiteral | undefined {
  if (/^[+-]?\d+$/.test(text)) return { kind: 'integer', text };
  if (/^[+-]?(\d+\.\d*|\.\d+)$/.test(text)) return { kind: 'decimal', text };
  if (/^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$/.test(text)) return { kind: 'float', text };
  return undefined;
}

/**
 * The literal as SQL text of a dialect that reads back to the same value: quotes doubled, and for
 * MySQL (whose strings take backslash escapes) backslashes doubled; bytes as `X'…'`, or as a
 * `bytea` literal for PostgreSQL.
 */
export function literalToSql(literal: SqlLiteral, dialect: SqlDialect): string {
  switch (literal.kind) {
    case 'null':
      return 'NULL';
    case 'integer':
    case 'decimal':
    case 'float':
      return literal.text;
    case 'string': {
      const quoted = literal.value.replaceAll("'", "''");
      return `'${dialect === 'mysql' ? quoted.replaceAll('\\', '\\\\') : quoted}'`;
    }
    case 'bytes':
      return dialect === 'postgres' ? `'\\x${literal.hex}'::bytea` : `X'${literal.hex}'`;
  }
}
