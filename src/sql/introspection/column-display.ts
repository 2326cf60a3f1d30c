import type { DumpColumn } from '../dump/dump-model.js';
import type { MysqlCatalogue, TableDescription } from './mysql-catalogue.js';

/** Types whose values have a character set (and so a collation). */
const CHARACTER_TYPES = /^(char|varchar|tinytext|text|mediumtext|longtext|enum|set|national|long varchar)\b/;
/** Types MySQL allows no literal default on, so `SHOW CREATE TABLE` writes no `DEFAULT NULL`. */
export const NO_DEFAULT_TYPES =
  /^(tinytext|text|mediumtext|longtext|tinyblob|blob|mediumblob|longblob|json|geometry)\b/;
const NOW = /^(current_timestamp|now|localtimestamp|localtime)(\((\d*)\))?$/i;

/** The `Default` value of a column as MySQL shows it (a string, or null). */
export function defaultText(column: DumpColumn): string | null {
  const value = column.default;
  if (value === undefined) return null;
  switch (value.kind) {
    case 'null':
      return null;
    case 'integer':
    case 'decimal':
    case 'float':
      return value.text;
    case 'string':
      return value.value;
    case 'bytes':
      return `0x${value.hex}`;
    case 'expression': {
      const now = NOW.exec(value.text);
      if (!now) return value.text;
      return now[3] ? `CURRENT_TIMESTAMP(${now[3]})` : 'CURRENT_TIMESTAMP';
    }
  }
}

/** The `Extra` value of a column as MySQL shows it. */
export function extraText(column: DumpColumn): string {
  if (column.autoIncrement) return 'auto_increment';
  return column.default?.kind === 'expression' ? 'DEFAULT_GENERATED' : '';
}

/** The `Collation` of a column as `SHOW FULL COLUMNS` shows it (null for types without a character set). */
export function collationOf(
  column: DumpColumn,
  table: TableDescription,
  catalogue: MysqlCatalogue,
): string | null {
  if (!CHARACTER_TYPES.test(column.mysqlType)) return null;
  return column.collation ?? table.collation ?? catalogue.databaseCollation ?? 'utf8mb4_0900_ai_ci';
}
