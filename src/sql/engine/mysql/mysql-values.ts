import type { FieldPacket, TypeCast } from 'mysql2';

/** MySQL protocol type codes (`MYSQL_TYPE_*`) by their numbers. */
const TYPE_NAMES: Readonly<Record<number, string>> = {
  0: 'decimal',
  1: 'tinyint',
  2: 'smallint',
  3: 'int',
  4: 'float',
  5: 'double',
  6: 'null',
  7: 'timestamp',
  8: 'bigint',
  9: 'mediumint',
  10: 'date',
  11: 'time',
  12: 'datetime',
  13: 'year',
  14: 'date',
  15: 'varchar',
  16: 'bit',
  17: 'timestamp',
  18: 'datetime',
  19: 'time',
  242: 'vector',
  245: 'json',
  246: 'decimal',
  247: 'enum',
  248: 'set',
  249: 'blob',
  250: 'blob',
  251: 'blob',
  252: 'blob',
  253: 'varchar',
  254: 'char',
  255: 'geometry',
};

/** Character set number of binary data (`binary`, `varbinary`, `blob`, and numbers as text). */
const BINARY_CHARSET = 63;

/** Integer protocol types: their values become `bigint`. */
const INTEGER_TYPES = new Set(['TINY', 'SHORT', 'LONG', 'INT24', 'LONGLONG', 'YEAR']);

/**
 * The column type as a lower-case MySQL name (`int`, `bigint`, `decimal`, `double`, `float`,
 * `varchar`, `char`, `text`, `blob`, `binary`, `varbinary`, `date`, `datetime`, `timestamp`,
 * `time`, `year`, `bit`, `json`, `enum`, `set`), from the result's column definition. Text and
 * binary columns share protocol types and differ by character set (63 is binary). MariaDB's JSON
 * is `longtext` with the `json` format in its extended metadata.
 */
export function mysqlColumnType(field: FieldPacket): string {
  const code = field.columnType ?? field.type ?? -1;
  const name = TYPE_NAMES[code] ?? `type${code}`;
  const binary = field.characterSet === BINARY_CHARSET;
  if (field.extendedFormat === 'json') return 'json';
  if (name === 'blob') return binary ? 'blob' : 'text';
  if (name === 'varchar') return binary ? 'varbinary' : 'varchar';
  if (name === 'char') return binary ? 'binary' : 'char';
  return name;
}

/**
 * How result values are converted (`typeCast` of mysql2, with `supportBigNumbers`,
 * `bigNumberStrings`, `decimalNumbers: false`, `dateStrings` and `jsonStrings` set on the
 * connection), so that no precision is lost and every type stays distinguishable, for the mapping
 * to what Python's `mysql.connector` returned upstream:
 * - integer types and `YEAR` → `bigint` (64-bit and unsigned values exact; an `int` stays apart from
 *   a `float` with an integral value);
 * - `DECIMAL` → `string`, the server's text (`'12.5000'`: Python's `Decimal('12.5000')` keeps the scale);
 * - `FLOAT`/`DOUBLE` → `number`;
 * - `DATE`, `DATETIME`, `TIMESTAMP`, `TIME` → `string` as the server writes it (`'2017-09-03 08:43:56'`),
 *   free of the client's time zone;
 * - text types, `ENUM`, `SET`, `JSON` → `string`; binary types and `BIT` → `Buffer`; NULL → `null`.
 * The column types go with the rows (`columnTypes`), since a `string` may be text, a decimal or a date.
 */
export const mysqlTypeCast: TypeCast = (field, next) => {
  if (INTEGER_TYPES.has(field.type)) {
    const text = field.string();
    return text === null ? null : BigInt(text);
  }
  return next();
};
