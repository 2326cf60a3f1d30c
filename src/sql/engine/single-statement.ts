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
  if (sql.length > RECENT_MAX_CHARS) return check(sql, dialect);
  const key = `${dialect}\0${sql}`;
  const known = recent.get(key);
  if (known !== undefined) return known;
  const result = check(sql, dialect);
  if (recent.size >= RECENT_LIMIT) recent.delete(recent.keys().next().value as string);
  recent.set(key, result);
  return result;
}

/** Verdicts kept (a few per concurrent episode), of queries up to this long. */
const RECENT_LIMIT = 16;
const RECENT_MAX_CHARS = 8192;

/**
 * The last queries checked and their verdicts (read-only, so they can be shared), oldest first: an
 * episode checks the same text twice when the agent's query is the gold's (its gold run, then the
 * agent's), with other episodes' checks in between.
 */
const recent = new Map<string, SingleStatement>();

function check(sql: string, dialect: SqlDialect): SingleStatement {
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
