import type { TableBuilder } from './parse-create-table.js';
import { parseLiteral } from './parse-literal.js';
import type { SqlStatement } from './split-statements.js';
import { NULL_LITERAL, type SqlLiteral } from './sql-literal.js';
import { TokenCursor } from './token-cursor.js';

/**
 * Reads `INSERT [IGNORE] INTO t [(columns)] VALUES (…), (…)` and appends its rows to the table it
 * names (found by `table`), each in the table's column order. A row that omits a column gets the
 * column's literal default, or NULL when the column is nullable; anything else is an error.
 */
export function parseInsert(
  statement: SqlStatement,
  table: (name: string, cursor: TokenCursor) => TableBuilder,
): void {
  const cursor = new TokenCursor(statement.tokens, statement.line, statement.text, statement.start);
  cursor.expectKeywords('INSERT');
  for (const modifier of ['LOW_PRIORITY', 'DELAYED', 'HIGH_PRIORITY', 'IGNORE'])
    cursor.acceptKeywords(modifier);
  cursor.expectKeywords('INTO');
  const target = table(cursor.qualifiedName(), cursor);
  const width = target.columns.length;
  const order = cursor.acceptSymbol('(') ? columnOrder(cursor, target) : undefined;
  if (!cursor.acceptKeywords('VALUES')) cursor.expectKeywords('VALUE');
  const missing = order ? missingValues(cursor, target, order) : [];
  do {
    const open = cursor.peek();
    cursor.expectSymbol('(');
    const values: SqlLiteral[] = [];
    if (!cursor.acceptSymbol(')')) {
      do values.push(parseLiteral(cursor));
      while (cursor.acceptSymbol(','));
      cursor.expectSymbol(')');
    }
    const expected = order ? order.length : width;
    if (values.length !== expected) {
      throw cursor.error(`a row of ${values.length} values for ${expected} columns of ${target.name}`, open);
    }
    if (!order) target.rows.push(values);
    else {
      const row = missing.slice();
      order.forEach((position, i) => {
        row[position] = values[i] as SqlLiteral;
      });
      target.rows.push(row);
    }
  } while (cursor.acceptSymbol(','));
  cursor.expectEnd();
}

/** The table position of each listed column. */
function columnOrder(cursor: TokenCursor, table: TableBuilder): number[] {
  const positions: number[] = [];
  do {
    const name = cursor.identifier().toLowerCase();
    const position = table.columns.findIndex((column) => column.name.toLowerCase() === name);
    if (position < 0) throw cursor.error(`unknown column ${name} of ${table.name}`);
    positions.push(position);
  } while (cursor.acceptSymbol(','));
  cursor.expectSymbol(')');
  return positions;
}

/** A row template: the value of every column an INSERT's column list leaves out. */
function missingValues(cursor: TokenCursor, table: TableBuilder, order: readonly number[]): SqlLiteral[] {
  const listed = new Set(order);
  return table.columns.map((column, position) => {
    if (listed.has(position)) return NULL_LITERAL;
    if (column.default && column.default.kind !== 'expression') return column.default;
    if (!column.notNull && !column.default) return NULL_LITERAL;
    throw cursor.error(`the INSERT omits column ${column.name}, which has no literal default`);
  });
}
