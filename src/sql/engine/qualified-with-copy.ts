import type { SqlStatement } from '../dump/split-statements.js';
import { isKeyword, type SqlToken } from '../dump/sql-token.js';

/** Keywords after which a name is a table's (so `a.b` there is database and table, never table and column). */
const TABLE_POSITION = new Set(['FROM', 'JOIN', 'UPDATE', 'INTO', 'TABLE', 'DESCRIBE', 'DESC', 'EXPLAIN']);

function isName(token: SqlToken | undefined): token is SqlToken {
  return token?.kind === 'word' || token?.kind === 'quoted-identifier';
}

function isDot(token: SqlToken | undefined): boolean {
  return token?.kind === 'symbol' && token.value === '.';
}

/** The engines whose copies this applies to (each names a database in a qualified name its own way). */
export type QualifiedNames = 'mysql' | 'postgres';

/**
 * The statement with the database's own name (`shown`) turned into its session copy's (`copy`)
 * where it qualifies a name, so that every copy answers as the first one (which has the database's
 * name) does; undefined when nothing names it so. Only where the qualifier is the database's for
 * sure, without resolving names (Spider has databases with a table of the same name: `singer.Name`
 * is table and column):
 * - MySQL: `db.t` after `FROM`, `JOIN`, `UPDATE`, `INTO`, `TABLE`, `DESCRIBE` (a table's place),
 *   `db.t.c` anywhere, and `SHOW … FROM|IN db`;
 * - PostgreSQL: `db.schema.t` in a table's place (`db.t` there is schema and table).
 */
export function qualifiedWithCopy(
  statement: SqlStatement,
  shown: string,
  copy: string,
  engine: QualifiedNames,
): string | undefined {
  if (shown.toLowerCase() === copy.toLowerCase()) return undefined;
  const { tokens } = statement;
  const show = isKeyword(tokens[0], 'SHOW');
  const targets: SqlToken[] = [];
  tokens.forEach((token, i) => {
    if (!isName(token) || token.value.toLowerCase() !== shown.toLowerCase() || isDot(tokens[i - 1])) return;
    const previous = tokens[i - 1];
    const tablePlace = previous?.kind === 'word' && TABLE_POSITION.has(previous.value.toUpperCase());
    const twoParts = isDot(tokens[i + 1]) && isName(tokens[i + 2]);
    const threeParts = twoParts && isDot(tokens[i + 3]) && isName(tokens[i + 4]);
    const wanted =
      engine === 'postgres'
        ? tablePlace && threeParts
        : (tablePlace && twoParts) ||
          threeParts ||
          (show && (isKeyword(previous, 'FROM') || isKeyword(previous, 'IN')));
    if (wanted) targets.push(token);
  });
  if (targets.length === 0) return undefined;
  // PostgreSQL: bare when it can be (a double-quoted name that names no column may be read as a string).
  const quoted =
    engine === 'mysql'
      ? `\`${copy.replaceAll('`', '``')}\``
      : /^[a-z_][a-z0-9_]*$/.test(copy)
        ? copy
        : `"${copy.replaceAll('"', '""')}"`;
  let text = statement.text;
  for (const token of targets.reverse()) {
    const start = token.start - statement.start;
    text = text.slice(0, start) + quoted + text.slice(token.end - statement.start);
  }
  return text;
}
