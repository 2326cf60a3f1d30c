/**
 * First words of the statements the SQL parser runs. Statements that change the database run too
 * (the paper's runs did send `ALTER`, `USE` and `SET sql_mode` to the database, and the environment
 * restores a changed database before the next episode); only text that does not start like a SQL
 * statement is refused.
 */
export const SQL_KEYWORDS: ReadonlySet<string> = new Set([
  'SELECT',
  'WITH',
  'SHOW',
  'DESCRIBE',
  'DESC',
  'EXPLAIN',
  'PRAGMA',
  'VALUES',
  'TABLE',
  'INSERT',
  'UPDATE',
  'DELETE',
  'REPLACE',
  'CREATE',
  'DROP',
  'ALTER',
  'USE',
  'SET',
]);

/**
 * The first statement of `text`: leading comments skipped, cut at the first `;` that is outside a
 * string, a quoted name or a comment (the `;` itself dropped), trimmed. Without a `;`, the whole
 * rest of the text. `undefined` when no statement is left.
 */
export function firstSqlStatement(text: string): string | undefined {
  const start = skipComments(text, 0);
  let quote: string | undefined;
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (quote !== undefined) {
      if (c === '\\' && quote !== '`') i += 1;
      else if (c === quote) quote = undefined;
      i += 1;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === ';') break;
    else if (c === '-' && text[i + 1] === '-') i = lineEnd(text, i) - 1;
    else if (c === '#') i = lineEnd(text, i) - 1;
    else if (c === '/' && text[i + 1] === '*') i = commentEnd(text, i) - 1;
    i += 1;
  }
  const statement = text.slice(start, i).trim();
  return statement === '' ? undefined : statement;
}

/** The statement's first word, upper-cased (`''` when it starts with no word). */
export function firstSqlWord(statement: string): string {
  return (/^[A-Za-z]+/.exec(statement)?.[0] ?? '').toUpperCase();
}

function skipComments(text: string, from: number): number {
  let i = from;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i += 1;
    if (text.startsWith('--', i) || text[i] === '#') i = lineEnd(text, i);
    else if (text.startsWith('/*', i)) i = commentEnd(text, i);
    else return i;
  }
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end + 1;
}

function commentEnd(text: string, from: number): number {
  const end = text.indexOf('*/', from + 2);
  return end < 0 ? text.length : end + 2;
}
