/** PostgreSQL's error for a name that is no column (SQLSTATE 42703); the group is the name as written. */
const NOT_A_COLUMN = /^column "((?:[^"]|"")*)" does not exist$/s;

/** SQLSTATE `undefined_column`. */
export const UNDEFINED_COLUMN = '42703';

/**
 * The name PostgreSQL could not resolve as a column, when the error is that one. PostgreSQL reports
 * it while analysing the statement (nothing ran, and the statement's savepoint is rolled back
 * anyway), so the session rewrites the statement with `doubleQuotedAsString` and runs it again.
 */
export function unresolvedColumn(message: string): string | undefined {
  return NOT_A_COLUMN.exec(message)?.[1]?.replaceAll('""', '"');
}
