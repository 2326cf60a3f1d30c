import type { DumpColumn, DumpForeignKey, DumpIndex, DumpTable } from './dump-model.js';
import { parseMysqlType } from './mysql-column-type.js';
import { parseLiteral, startsExpressionDefault } from './parse-literal.js';
import type { SqlStatement } from './split-statements.js';
import { isKeyword } from './sql-token.js';
import { TokenCursor } from './token-cursor.js';

/** A table under construction: rows are appended by later `INSERT`s. */
export interface TableBuilder extends Omit<DumpTable, 'rows' | 'primaryKey' | 'indexes' | 'foreignKeys'> {
  readonly primaryKey: string[];
  readonly foreignKeys: DumpForeignKey[];
  readonly indexes: DumpIndex[];
  readonly rows: DumpTable['rows'][number][];
}

/** Skips a parenthesised group whose `(` is next, nested groups included. */
function skipGroup(cursor: TokenCursor): void {
  cursor.expectSymbol('(');
  let depth = 1;
  while (depth > 0) {
    const token = cursor.next();
    if (token.kind === 'symbol' && token.value === '(') depth++;
    else if (token.kind === 'symbol' && token.value === ')') depth--;
  }
}

/** Whether the next token ends a table element (`,` or the closing `)`). */
function atElementEnd(cursor: TokenCursor): boolean {
  const token = cursor.peek();
  return token?.kind === 'symbol' && (token.value === ',' || token.value === ')');
}

/** Skips index options (`USING BTREE`, `COMMENT '…'`, `VISIBLE`, …) up to the element's end. */
function skipToElementEnd(cursor: TokenCursor): void {
  while (!atElementEnd(cursor)) {
    const token = cursor.peek();
    if (token?.kind === 'symbol' && token.value === '(') skipGroup(cursor);
    else cursor.next();
  }
}

/** `(a, b(255) DESC, …)`: the column names of a key, prefix lengths and order dropped. */
function keyParts(cursor: TokenCursor): string[] {
  const columns: string[] = [];
  cursor.expectSymbol('(');
  do {
    if (cursor.peek()?.kind === 'symbol') throw cursor.error('functional key parts are not supported');
    columns.push(cursor.identifier());
    if (cursor.acceptSymbol('(')) {
      cursor.next();
      cursor.expectSymbol(')');
    }
    if (!cursor.acceptKeywords('ASC')) cursor.acceptKeywords('DESC');
  } while (cursor.acceptSymbol(','));
  cursor.expectSymbol(')');
  return columns;
}

/** An optional index name before the key parts. */
function optionalName(cursor: TokenCursor): string | undefined {
  const token = cursor.peek();
  if (token?.kind === 'symbol' || isKeyword(token, 'USING')) return undefined;
  return cursor.identifier();
}

function foreignKey(cursor: TokenCursor, name: string | undefined): DumpForeignKey {
  const indexName = optionalName(cursor);
  const columns = keyParts(cursor);
  cursor.expectKeywords('REFERENCES');
  const refTable = cursor.qualifiedName();
  const refColumns = keyParts(cursor);
  skipToElementEnd(cursor);
  const constraint = name ?? indexName;
  return { ...(constraint !== undefined ? { name: constraint } : {}), columns, refTable, refColumns };
}

function column(cursor: TokenCursor, table: TableBuilder): DumpColumn {
  const name = cursor.identifier();
  const mysqlType = parseMysqlType(cursor);
  let notNull = false;
  let autoIncrement = false;
  let collation: string | undefined;
  let defaultValue: DumpColumn['default'];
  while (!atElementEnd(cursor)) {
    if (cursor.acceptKeywords('NOT', 'NULL')) notNull = true;
    else if (cursor.acceptKeywords('NULL')) notNull = false;
    else if (cursor.acceptKeywords('AUTO_INCREMENT')) autoIncrement = true;
    else if (cursor.acceptKeywords('COLLATE')) collation = cursor.identifier();
    else if (cursor.acceptKeywords('CHARACTER', 'SET') || cursor.acceptKeywords('CHARSET'))
      cursor.identifier();
    else if (cursor.acceptKeywords('DEFAULT')) defaultValue = columnDefault(cursor);
    else if (cursor.acceptKeywords('ON', 'UPDATE')) columnDefault(cursor);
    else if (cursor.acceptKeywords('PRIMARY', 'KEY') || cursor.acceptKeywords('KEY'))
      table.primaryKey.push(name);
    else if (cursor.acceptKeywords('UNIQUE')) {
      if (!cursor.acceptKeywords('KEY')) cursor.acceptKeywords('INDEX');
      table.indexes.push({ columns: [name], unique: true });
    } else if (cursor.acceptKeywords('COMMENT')) parseLiteral(cursor);
    else if (cursor.acceptKeywords('VISIBLE') || cursor.acceptKeywords('INVISIBLE')) continue;
    else if (cursor.acceptKeywords('COLUMN_FORMAT') || cursor.acceptKeywords('STORAGE')) cursor.next();
    else throw cursor.error(`unsupported option of column ${name}`);
  }
  return {
    name,
    mysqlType,
    notNull,
    ...(defaultValue !== undefined ? { default: defaultValue } : {}),
    autoIncrement,
    ...(collation !== undefined ? { collation } : {}),
  };
}

/** A `DEFAULT` value: a literal, or an expression (`CURRENT_TIMESTAMP`, `now()`, `(expr)`) as text. */
function columnDefault(cursor: TokenCursor): DumpColumn['default'] {
  if (!startsExpressionDefault(cursor)) return parseLiteral(cursor);
  const first = cursor.peek()!;
  let last = first;
  if (first.kind === 'symbol') skipGroup(cursor);
  else {
    cursor.next();
    if (cursor.peek()?.kind === 'symbol' && cursor.peek()?.value === '(') skipGroup(cursor);
  }
  last = cursor.peek(-1) ?? last;
  return { kind: 'expression', text: cursor.source(first, last) };
}

/** One element of the table body: a column or a key or constraint definition. */
function element(cursor: TokenCursor, table: TableBuilder, columns: DumpColumn[]): void {
  if (cursor.acceptKeywords('CONSTRAINT')) {
    const name =
      isKeyword(cursor.peek(), 'PRIMARY') ||
      isKeyword(cursor.peek(), 'UNIQUE') ||
      isKeyword(cursor.peek(), 'FOREIGN') ||
      isKeyword(cursor.peek(), 'CHECK')
        ? undefined
        : cursor.identifier();
    constraint(cursor, table, name);
    return;
  }
  const token = cursor.peek();
  const word = token?.kind === 'word' ? token.value.toUpperCase() : '';
  if (['PRIMARY', 'UNIQUE', 'FOREIGN', 'CHECK', 'KEY', 'INDEX', 'FULLTEXT', 'SPATIAL'].includes(word)) {
    constraint(cursor, table, undefined);
  } else columns.push(column(cursor, table));
}

function constraint(cursor: TokenCursor, table: TableBuilder, name: string | undefined): void {
  if (cursor.acceptKeywords('PRIMARY', 'KEY')) {
    if (table.primaryKey.length > 0) throw cursor.error('a second primary key');
    optionalName(cursor);
    table.primaryKey.push(...keyParts(cursor));
    skipToElementEnd(cursor);
  } else if (cursor.acceptKeywords('FOREIGN', 'KEY')) {
    table.foreignKeys.push(foreignKey(cursor, name));
  } else if (cursor.acceptKeywords('CHECK')) {
    skipGroup(cursor);
    skipToElementEnd(cursor);
  } else {
    const unique = cursor.acceptKeywords('UNIQUE');
    if (!unique && !cursor.acceptKeywords('FULLTEXT')) cursor.acceptKeywords('SPATIAL');
    if (!cursor.acceptKeywords('KEY')) cursor.acceptKeywords('INDEX');
    const indexName = optionalName(cursor) ?? name;
    const columns = keyParts(cursor);
    skipToElementEnd(cursor);
    table.indexes.push({ ...(indexName !== undefined ? { name: indexName } : {}), columns, unique });
  }
}

/** Table options after the body: only the default collation is kept (`COLLATE=…`). */
function tableCollation(cursor: TokenCursor): string | undefined {
  let collation: string | undefined;
  while (!cursor.done) {
    if (cursor.acceptKeywords('COLLATE')) {
      cursor.acceptSymbol('=');
      collation = cursor.identifier();
    } else cursor.next();
  }
  return collation;
}

/** Reads `CREATE TABLE [IF NOT EXISTS] name (elements) options`. */
export function parseCreateTable(statement: SqlStatement, tokens: SqlStatement['tokens']): TableBuilder {
  const cursor = new TokenCursor(tokens, statement.line, statement.text, statement.start);
  cursor.expectKeywords('CREATE');
  cursor.acceptKeywords('TEMPORARY');
  cursor.expectKeywords('TABLE');
  cursor.acceptKeywords('IF', 'NOT', 'EXISTS');
  const name = cursor.qualifiedName();
  if (
    isKeyword(cursor.peek(), 'LIKE') ||
    isKeyword(cursor.peek(), 'AS') ||
    isKeyword(cursor.peek(), 'SELECT')
  ) {
    throw cursor.error('CREATE TABLE … LIKE/SELECT is not supported');
  }
  const columns: DumpColumn[] = [];
  const table: TableBuilder = {
    name,
    columns,
    primaryKey: [],
    foreignKeys: [],
    indexes: [],
    rows: [],
    createSql: statement.text,
    line: statement.line,
  };
  cursor.expectSymbol('(');
  do element(cursor, table, columns);
  while (cursor.acceptSymbol(','));
  cursor.expectSymbol(')');
  const collation = tableCollation(cursor);
  const known = new Set(columns.map((c) => c.name.toLowerCase()));
  for (const key of [table.primaryKey, ...table.indexes.map((index) => index.columns)]) {
    for (const part of key) {
      if (!known.has(part.toLowerCase())) throw cursor.error(`key names unknown column ${part} of ${name}`);
    }
  }
  return collation !== undefined ? { ...table, collation } : table;
}
