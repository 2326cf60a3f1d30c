import type { SqlDialect, SqlLexicalRules } from './sql-dialect.js';
import { isCodeToken, isKeyword, type SqlToken } from './sql-token.js';
import { tokenizeSql } from './tokenize-sql.js';

/** One statement of SQL text, as the server would receive it. */
export interface SqlStatement {
  /** The source from its first code token to its last (the terminating `;` excluded). */
  readonly text: string;
  /** 1-based line of the first code token. */
  readonly line: number;
  /** Offsets of `text` in the source. */
  readonly start: number;
  readonly end: number;
  /** The code tokens (comments dropped; MySQL conditional comments kept, they are code to MySQL). */
  readonly tokens: readonly SqlToken[];
  /** Whether a `;` closed it (false for the last statement of a text without a final `;`). */
  readonly terminated: boolean;
}

/** Statements that hold a body of statements between BEGIN and END (triggers, routines, events). */
const COMPOUND_OBJECTS = new Set(['TRIGGER', 'PROCEDURE', 'FUNCTION', 'EVENT']);

/**
 * Whether a statement with these leading tokens is a `CREATE … TRIGGER|PROCEDURE|FUNCTION|EVENT`
 * whose `BEGIN … END` body contains `;`s that do not end it.
 */
function isCompound(tokens: readonly SqlToken[]): boolean {
  if (!isKeyword(tokens[0], 'CREATE')) return false;
  for (const token of tokens.slice(1, 8)) {
    if (token.kind === 'word' && COMPOUND_OBJECTS.has(token.value.toUpperCase())) return true;
  }
  return false;
}

/**
 * Splits SQL text into statements at top-level `;`s, by the quoting and comment rules of a dialect
 * (a `;` inside a string, identifier or comment does not split). Text with no code between two `;`s
 * (blanks, comments) is not a statement. Inside the `BEGIN … END` body of a `CREATE TRIGGER`
 * (or procedure, function, event), a `;` ends the statement only right after `END`, as SQLite's
 * `sqlite3_complete` decides; a `CASE … END;` inside such a body therefore ends it early (a limit
 * SQLite's shell shares).
 */
export function splitStatements(text: string, dialect: SqlDialect | SqlLexicalRules): SqlStatement[] {
  return splitTokens(text, tokenizeSql(text, dialect));
}

/** {@link splitStatements} over tokens already made from `text`. */
export function splitTokens(text: string, tokens: readonly SqlToken[]): SqlStatement[] {
  const statements: SqlStatement[] = [];
  let current: SqlToken[] = [];
  let inBody = false;
  const finish = (terminated: boolean) => {
    const first = current[0];
    const last = current[current.length - 1];
    if (first && last) {
      statements.push({
        text: text.slice(first.start, last.end),
        line: first.line,
        start: first.start,
        end: last.end,
        tokens: current,
        terminated,
      });
    }
    current = [];
    inBody = false;
  };
  for (const token of tokens) {
    if (!isCodeToken(token)) continue;
    if (token.kind === 'symbol' && token.value === ';') {
      if (!inBody || isKeyword(current[current.length - 1], 'END')) {
        finish(true);
        continue;
      }
    }
    current.push(token);
    if (!inBody && isKeyword(token, 'BEGIN') && isCompound(current)) inBody = true;
  }
  finish(false);
  return statements;
}
