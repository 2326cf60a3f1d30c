import { type SqlStatement, splitStatements } from '../dump/split-statements.js';
import type { SqlDialect } from '../dump/sql-dialect.js';
import { QUERY_ERROR } from './sql-engine.js';

/** The one statement of a query, or why the query is refused before it reaches the engine. */
export type SingleStatement =
  | { readonly ok: true; readonly statement: SqlStatement }
  | { readonly ok: false; readonly message: string; readonly code: string };

/**
 * Checks that a query holds exactly one statement, by the dialect's quoting rules (a `;` in a string
 * or comment does not count; a trailing `;` is fine). Every engine calls it before running anything,
 * so that an action can never run half of its statements.
 */
export function singleStatement(sql: string, dialect: SqlDialect): SingleStatement {
  const statements = splitStatements(sql, dialect);
  const [statement] = statements;
  if (!statement)
    return { ok: false, message: 'empty query: no SQL statement', code: QUERY_ERROR.emptyQuery };
  if (statements.length > 1) {
    return {
      ok: false,
      message: `one statement per action: the query holds ${statements.length} statements`,
      code: QUERY_ERROR.multipleStatements,
    };
  }
  return { ok: true, statement };
}
