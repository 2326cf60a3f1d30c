import type { SqlToken } from '../../dump/sql-token.js';
import { tokenizeSql } from '../../dump/tokenize-sql.js';
import { doubleQuotedTokensAsStrings } from '../double-quoted-as-string.js';

/** Columns every PostgreSQL table has besides its own. */
const SYSTEM_COLUMNS = new Set(['tableoid', 'xmin', 'cmin', 'xmax', 'cmax', 'ctid', 'oid']);

/** Names of the system's own schemas and relations, whose columns the pristine schema does not list. */
const SYSTEM_NAME = /^(pg_|information_schema$)/;

/**
 * The statement with its double-quoted names that can name nothing already turned into strings
 * (as `doubleQuotedAsString` does), or undefined when there is none. The session would otherwise run the
 * statement, get PostgreSQL's "column does not exist" for each such name and run it again rewritten:
 * two round trips per name for a result this gives at once. A name counts as naming nothing only
 * when no doubt is left: it is no table or column of the database's pristine schema (`known`, lower
 * case: any case matches) nor a system column, no other token of the statement has its text (an
 * alias, a name written without quotes), and each of its occurrences stands where only a value may
 * (`valuePosition`). A statement that names the system's catalogues, has a `WITH` or names the
 * columns of an alias (`AS t(a, b)`) is left alone. Anything else goes the usual way, by the error.
 */
export function unnameableDoubleQuoted(sql: string, known: ReadonlySet<string>): string | undefined {
  if (!sql.includes('"')) return undefined;
  const tokens = tokenizeSql(sql, 'postgres').filter(
    (token) => token.kind !== 'comment' && token.kind !== 'conditional-comment',
  );
  const candidates = new Map<string, boolean>();
  const named = new Set<string>();
  for (const [index, token] of tokens.entries()) {
    const lower = token.value.toLowerCase();
    if (token.kind === 'word' || (token.kind === 'quoted-identifier' && !token.text.startsWith('"'))) {
      // Names defined with their columns (a CTE, `AS t(a, b)`): the columns are the statement's own.
      if (SYSTEM_NAME.test(lower) || lower === 'with' || (lower === 'as' && tokens[index + 2]?.text === '('))
        return undefined;
      named.add(lower);
      continue;
    }
    if (token.kind !== 'quoted-identifier') continue;
    if (SYSTEM_NAME.test(lower)) return undefined;
    const free =
      candidates.get(token.value) !== false &&
      !known.has(lower) &&
      !SYSTEM_COLUMNS.has(lower) &&
      valuePosition(tokens[index - 1], tokens[index + 1]);
    candidates.set(token.value, free);
  }
  const values = new Set(
    [...candidates]
      .filter(([value, free]) => free && !named.has(value.toLowerCase()))
      .map(([value]) => value),
  );
  return values.size > 0 ? doubleQuotedTokensAsStrings(sql, tokens, values) : undefined;
}

/** Symbols after which a name stands as a value (an operand, an argument, a list item). */
const VALUE_AFTER_SYMBOL = new Set([
  '=',
  '<>',
  '!=',
  '<',
  '>',
  '<=',
  '>=',
  '(',
  ',',
  '+',
  '-',
  '*',
  '/',
  '%',
  '||',
]);
/** Keywords after which a name stands as a value. */
const VALUE_AFTER_WORD = new Set([
  'select',
  'distinct',
  'where',
  'and',
  'or',
  'not',
  'like',
  'ilike',
  'by',
  'case',
  'when',
  'then',
  'else',
  'between',
  'having',
  'on',
  'is',
]);

/**
 * Whether a name between these tokens stands where only a value may: after an operator, a comma, an
 * opening parenthesis or a keyword that a value follows; not right after something that ends an
 * expression (then it is an alias), nor before `.` or `(` (a qualifier, a function).
 */
function valuePosition(before: SqlToken | undefined, after: SqlToken | undefined): boolean {
  if (after?.kind === 'symbol' && (after.text === '.' || after.text === '(')) return false;
  if (before?.kind === 'symbol') return VALUE_AFTER_SYMBOL.has(before.text);
  return before?.kind === 'word' && VALUE_AFTER_WORD.has(before.value.toLowerCase());
}
