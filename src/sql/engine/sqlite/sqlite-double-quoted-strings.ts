import { tokenizeSql } from '../../dump/tokenize-sql.js';

/**
 * SQLite's error for a double-quoted name that is no column, when it is built without the legacy
 * "double-quoted string literal" behaviour (better-sqlite3 is built with `SQLITE_DQS=0`); the group
 * is the unquoted name.
 */
const NOT_A_COLUMN = /^no such column: "(.*)" - should this be a string literal in single-quotes\?$/s;

/** The name SQLite could not resolve as a column, when the error is that one. */
export function unresolvedDoubleQuoted(message: string): string | undefined {
  return NOT_A_COLUMN.exec(message)?.[1];
}

/**
 * The statement with every `"value"` (a double-quoted name whose unquoted text is `value`) turned
 * into the string literal `'value'`; undefined when there is none.
 *
 * Used to restore SQLite's legacy behaviour, which resolves `"x"` as a name and falls back to the
 * string `'x'` when no column has that name: the error above comes from preparing the statement
 * (nothing ran), so the session rewrites and prepares again. Spider's gold queries (written for SQLite
 * with that behaviour, and valid MySQL, where `"x"` is always a string) rely on it, as agents told
 * they write MySQL do.
 */
export function doubleQuotedAsString(sql: string, value: string): string | undefined {
  const tokens = tokenizeSql(sql, 'sqlite').filter(
    (token) => token.kind === 'quoted-identifier' && token.text.startsWith('"') && token.value === value,
  );
  if (tokens.length === 0) return undefined;
  let rewritten = sql;
  for (const token of tokens.reverse()) {
    const literal = `'${value.replaceAll("'", "''")}'`;
    rewritten = rewritten.slice(0, token.start) + literal + rewritten.slice(token.end);
  }
  return rewritten;
}
