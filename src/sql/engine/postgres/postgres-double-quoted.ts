import { tokenizeSql } from '../../dump/tokenize-sql.js';

/** PostgreSQL's error for a name that is no column (SQLSTATE 42703); the group is the name as written. */
const NOT_A_COLUMN = /^column "((?:[^"]|"")*)" does not exist$/s;

/** SQLSTATE `undefined_column`. */
export const UNDEFINED_COLUMN = '42703';

/** The name PostgreSQL could not resolve as a column, when the error is that one. */
export function unresolvedColumn(message: string): string | undefined {
  return NOT_A_COLUMN.exec(message)?.[1]?.replaceAll('""', '"');
}

/**
 * The statement with every `"value"` (a double-quoted name whose text is `value`) turned into the
 * string literal `'value'`; undefined when there is none.
 *
 * The PostgreSQL engine makes the same choice as the SQLite one (`sqlite-double-quoted-strings.ts`):
 * a double-quoted name that is no column reads as a string, as MySQL reads `"x"` and as Spider's
 * gold queries and agents told they write MySQL expect. PostgreSQL reports the unknown column while
 * analysing the statement (nothing ran, and the statement's savepoint is rolled back anyway), so
 * the session rewrites the statement and runs it again.
 */
export function doubleQuotedAsString(sql: string, value: string): string | undefined {
  const tokens = tokenizeSql(sql, 'postgres').filter(
    (token) => token.kind === 'quoted-identifier' && token.text.startsWith('"') && token.value === value,
  );
  if (tokens.length === 0) return undefined;
  let rewritten = sql;
  for (const token of tokens.reverse()) {
    rewritten = `${rewritten.slice(0, token.start)}'${value.replaceAll("'", "''")}'${rewritten.slice(token.end)}`;
  }
  return rewritten;
}
