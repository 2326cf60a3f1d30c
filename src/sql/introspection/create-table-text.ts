import { isKeyword, type SqlToken } from '../dump/sql-token.js';
import { tokenizeSql } from '../dump/tokenize-sql.js';
import { defaultText, NO_DEFAULT_TYPES } from './column-display.js';
import type { TableDescription } from './mysql-catalogue.js';
import { type Key, same } from './table-keys.js';

function quoteName(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

function quoteString(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** A `CREATE TABLE` as MySQL 8's SHOW CREATE TABLE writes it, from a description. */
export function createTableText(
  table: TableDescription,
  name: string,
  keys: readonly Key[],
  rename: (n: string) => string,
) {
  const lines = table.columns.map((column) => {
    const parts = [`${quoteName(column.name)} ${column.mysqlType}`];
    const notNull = column.notNull || table.primaryKey.some((key) => same(key, column.name));
    if (notNull) parts.push('NOT NULL');
    const value = column.default;
    if (value === undefined || value.kind === 'null') {
      if (!notNull && !NO_DEFAULT_TYPES.test(column.mysqlType)) parts.push('DEFAULT NULL');
    } else if (value.kind === 'expression') parts.push(`DEFAULT ${defaultText(column)}`);
    else parts.push(`DEFAULT ${quoteString(defaultText(column) ?? '')}`);
    if (column.autoIncrement) parts.push('AUTO_INCREMENT');
    return `  ${parts.join(' ')}`;
  });
  const columnsOf = (columns: readonly string[]) => columns.map(quoteName).join(',');
  for (const key of keys) {
    if (key.primary) lines.push(`  PRIMARY KEY (${columnsOf(key.columns)})`);
    else lines.push(`  ${key.unique ? 'UNIQUE ' : ''}KEY ${quoteName(key.name)} (${columnsOf(key.columns)})`);
  }
  for (const foreign of table.foreignKeys) {
    const constraint = foreign.name !== undefined ? `CONSTRAINT ${quoteName(foreign.name)} ` : '';
    lines.push(
      `  ${constraint}FOREIGN KEY (${columnsOf(foreign.columns)}) REFERENCES ${quoteName(rename(foreign.refTable))} (${columnsOf(foreign.refColumns)})`,
    );
  }
  const collation = table.collation ?? 'utf8mb4_0900_ai_ci';
  const charset = collation.split('_')[0] ?? 'utf8mb4';
  return `CREATE TABLE ${quoteName(name)} (\n${lines.join(',\n')}\n) ENGINE=InnoDB DEFAULT CHARSET=${charset} COLLATE=${collation}`;
}

/** The dump's own CREATE TABLE text with the table names (its own, REFERENCES targets) renamed. */
export function renameCreateText(text: string, rename: (n: string) => string): string {
  const tokens = tokenizeSql(text, 'mysql');
  const targets: SqlToken[] = [];
  tokens.forEach((token, i) => {
    const previous = tokens[i - 1];
    const isName = token.kind === 'quoted-identifier' || token.kind === 'word';
    if (!isName) return;
    if (
      (isKeyword(previous, 'TABLE') && isKeyword(tokens[i - 2], 'CREATE')) ||
      isKeyword(previous, 'REFERENCES')
    )
      targets.push(token);
  });
  let result = text;
  for (const token of targets.reverse()) {
    result = result.slice(0, token.start) + quoteName(rename(token.value)) + result.slice(token.end);
  }
  return result;
}
