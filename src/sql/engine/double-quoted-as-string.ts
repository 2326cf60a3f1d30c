import type { SqlDialect } from '../dump/sql-dialect.js';
import { tokenizeSql } from '../dump/tokenize-sql.js';

/**
 * The statement with every `"value"` (a double-quoted name whose unquoted text is `value`) turned
 * into the string literal `'value'`; undefined when there is none.
 *
 * SQLite and PostgreSQL read `"x"` as a name; MySQL, Spider's gold queries (written for SQLite's
 * legacy mode, and valid MySQL) and agents told they write MySQL read it as a string. Both engines
 * make the same choice: a double-quoted name that is no column reads as a string. Each recognises
 * its own "no such column" error (`sqlite-double-quoted-strings.ts`, `postgres-double-quoted.ts`),
 * which comes from preparing or analysing the statement (nothing ran), then rewrites the statement
 * with this and runs it again.
 */
export function doubleQuotedAsString(sql: string, value: string, dialect: SqlDialect): string | undefined {
  const tokens = tokenizeSql(sql, dialect).filter(
    (token) => token.kind === 'quoted-identifier' && token.text.startsWith('"') && token.value === value,
  );
  if (tokens.length === 0) return undefined;
  const literal = `'${value.replaceAll("'", "''")}'`;
  let rewritten = sql;
  for (const token of tokens.reverse()) {
    rewritten = rewritten.slice(0, token.start) + literal + rewritten.slice(token.end);
  }
  return rewritten;
}
