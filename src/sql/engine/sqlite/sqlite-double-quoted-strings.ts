/**
 * SQLite's error for a double-quoted name that is no column, when it is built without the legacy
 * "double-quoted string literal" behaviour (better-sqlite3 is built with `SQLITE_DQS=0`); the group
 * is the unquoted name.
 */
const NOT_A_COLUMN = /^no such column: "(.*)" - should this be a string literal in single-quotes\?$/s;

/**
 * The name SQLite could not resolve as a column, when the error is that one: the session then
 * restores SQLite's legacy behaviour (the name falls back to the string `'x'`) with
 * `doubleQuotedAsString` and prepares the statement again.
 */
export function unresolvedDoubleQuoted(message: string): string | undefined {
  return NOT_A_COLUMN.exec(message)?.[1];
}
