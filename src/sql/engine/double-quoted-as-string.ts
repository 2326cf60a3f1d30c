import type { SqlDialect } from '../dump/sql-dialect.js';
import type { SqlToken } from '../dump/sql-token.js';
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
  return doubleQuotedTokensAsStrings(sql, tokenizeSql(sql, dialect), new Set([value]));
}

/**
 * {@link doubleQuotedAsString} for every name of `values` at once, on the statement's tokens already
 * made (`tokenizeSql` of `sql`).
 */
export function doubleQuotedTokensAsStrings(
  sql: string,
  tokens: readonly SqlToken[],
  values: ReadonlySet<string>,
): string | undefined {
  const quoted = tokens.filter(
    (token) => token.kind === 'quoted-identifier' && token.text.startsWith('"') && values.has(token.value),
  );
  if (quoted.length === 0) return undefined;
  let rewritten = sql;
  for (const token of quoted.reverse()) {
    const literal = `'${token.value.replaceAll("'", "''")}'`;
    rewritten = rewritten.slice(0, token.start) + literal + rewritten.slice(token.end);
  }
  return rewritten;
}
