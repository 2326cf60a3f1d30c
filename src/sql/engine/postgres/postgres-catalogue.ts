import type {
  DumpColumn,
  DumpDatabase,
  DumpForeignKey,
  DumpIndex,
  DumpTable,
} from '../../dump/dump-model.js';
import { numberLiteral } from '../../dump/sql-literal.js';
import { groupForeignKeys, groupIndexes, modelIndexName } from '../../introspection/catalogue-keys.js';
import type { CatalogueTable, TableDescription } from '../../introspection/mysql-catalogue.js';
import {
  PristineCatalogue,
  type PristineSchema,
  pristineSchema,
  viewDescription,
} from '../../introspection/pristine-catalogue.js';
import { objectName } from '../object-name.js';
import { type PostgresTextMode, pgColumnType, pgIdentifier, pgString } from './postgres-schema.js';

/** What the engine built of a dump table: its column names (lower case) and PostgreSQL types, normalised as `normalType` does. */
interface BuiltColumns {
  readonly columns: readonly { readonly name: string; readonly type: string }[];
}

/** What a session's catalogue knows of its pristine database: the dump model of each table. */
export type PostgresPristineSchema = PristineSchema<BuiltColumns>;

type PristineTable = { readonly table: DumpTable } & BuiltColumns;

/** `format_type` output and the converter's type names in one form (`timestamp(0)`, `numeric(20,0)`). */
function normalType(type: string): string {
  return type
    .toLowerCase()
    .replace(/ without time zone$/, '')
    .replace(/^numeric\((\d+)\)$/, 'numeric($1,0)')
    .replace(/^timestamp$/, 'timestamp(6)');
}

/** The pristine schema of a dump database, as the PostgreSQL engine builds it (see `postgres-schema.ts`). */
export function postgresPristineSchema(
  database: DumpDatabase,
  text: PostgresTextMode,
): PostgresPristineSchema {
  return pristineSchema(database, (table) => {
    try {
      const columns = table.columns.map((column) => ({
        name: pgIdentifier(column.name),
        type: normalType(pgColumnType(column, text, table.collation).sql),
      }));
      return { columns };
    } catch {
      // A table the converter cannot write is not in the database either; never matches.
      return { columns: [] };
    }
  });
}

/**
 * A PostgreSQL type (`format_type`) as a MySQL type: `integer` → `int`, `double precision` →
 * `double`, `numeric(p,s)` → `decimal(p,s)`, `citext`/`text` → `text`, `character varying(n)` →
 * `varchar(n)`, `timestamp` → `datetime`, `boolean` → `tinyint(1)`, …; others as PostgreSQL names them.
 */
export function mysqlTypeOfPostgres(formatted: string): string {
  const type = formatted.toLowerCase().trim();
  const simple: Record<string, string> = {
    integer: 'int',
    smallint: 'smallint',
    bigint: 'bigint',
    real: 'float',
    'double precision': 'double',
    numeric: 'decimal(65,30)',
    text: 'text',
    citext: 'text',
    'character varying': 'text',
    character: 'char(1)',
    date: 'date',
    boolean: 'tinyint(1)',
    bytea: 'blob',
    json: 'json',
    jsonb: 'json',
    interval: 'time',
    uuid: 'char(36)',
    'timestamp with time zone': 'timestamp',
  };
  const known = simple[type];
  if (known !== undefined) return known;
  const numeric = /^numeric\((\d+)(?:,(\d+))?\)$/.exec(type);
  if (numeric) return `decimal(${numeric[1]},${numeric[2] ?? '0'})`;
  const varchar = /^character varying\((\d+)\)$/.exec(type);
  if (varchar) return `varchar(${varchar[1]})`;
  const char = /^character\((\d+)\)$/.exec(type);
  if (char) return `char(${char[1]})`;
  const stamp = /^timestamp(?:\((\d)\))? without time zone$/.exec(type);
  if (stamp) return stamp[1] === undefined || stamp[1] === '0' ? 'datetime' : `datetime(${stamp[1]})`;
  const time = /^time(?:\((\d)\))? (?:with|without) time zone$/.exec(type);
  if (time) return time[1] === undefined || time[1] === '0' ? 'time' : `time(${time[1]})`;
  return type;
}

const NOW =
  /^(current_timestamp|now\(\)|localtimestamp|statement_timestamp\(\)|transaction_timestamp\(\))(\(\d*\))?$/i;

/** A column default as PostgreSQL reports it (`'x'::citext`, `0`, `NULL::text`, `LOCALTIMESTAMP(0)`), in the dump model's form. */
export function defaultOfPostgres(text: string | null): DumpColumn['default'] {
  if (text === null) return undefined;
  let value = text.trim();
  for (let cast = /^(.*)::[a-z_ ]+(\(\d+(,\d+)?\))?$/is.exec(value); cast; ) {
    value = (cast[1] ?? '').trim();
    cast = /^(.*)::[a-z_ ]+(\(\d+(,\d+)?\))?$/is.exec(value);
  }
  while (/^\(.*\)$/s.test(value) && !/^'/.test(value)) value = value.slice(1, -1).trim();
  if (/^null$/i.test(value)) return { kind: 'null' };
  const string = /^'((?:[^']|'')*)'$/s.exec(value);
  if (string) return { kind: 'string', value: (string[1] ?? '').replaceAll("''", "'") };
  if (/^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/i.test(value)) {
    const number = numberLiteral(value);
    if (number) return number;
  }
  if (/^true$/i.test(value)) return { kind: 'integer', text: '1' } as DumpColumn['default'];
  if (/^false$/i.test(value)) return { kind: 'integer', text: '0' } as DumpColumn['default'];
  if (NOW.test(value)) return { kind: 'expression', text: 'CURRENT_TIMESTAMP' };
  return { kind: 'expression', text };
}

interface RawColumn {
  readonly name: string;
  readonly type: string;
  readonly notNull: boolean;
  readonly default: string | null;
  readonly identity: boolean;
  /** Position in the primary key (1-based), or 0. */
  readonly primary: number;
}

/**
 * The PostgreSQL engine's side of MySQL introspection (see `answer-mysql-introspection.ts`) for one
 * session: tables and views of the session database's `public` schema as they are now (the
 * episode's transaction included). A dump table whose columns are still the ones the engine built
 * (names, types and primary key, in order) is described from the dump model (MySQL types,
 * defaults, AUTO_INCREMENT, keys and the dump's own `CREATE TABLE`); a table the agent created or
 * changed from `pg_catalog`, with PostgreSQL's types read as MySQL types (`mysqlTypeOfPostgres`).
 * Temporary tables are not listed.
 */
export class PostgresCatalogue extends PristineCatalogue<BuiltColumns> {
  async listTables(): Promise<readonly CatalogueTable[]> {
    const rows = await this.run(
      "SELECT c.relname::text, c.relkind::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')",
    );
    return rows.map(([name, kind]) => ({
      name: String(name),
      kind: kind === 'v' || kind === 'm' ? 'view' : 'table',
    }));
  }

  async describeTable(name: string): Promise<TableDescription | undefined> {
    const found = await this.run(
      `SELECT c.oid::int8::text, c.relname::text, c.relkind::text, CASE WHEN c.relkind IN ('v', 'm') THEN pg_catalog.pg_get_viewdef(c.oid) END FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND lower(c.relname) = lower(${pgString(name)}) ORDER BY c.relname = lower(${pgString(name)}) DESC, c.relname LIMIT 1`,
    );
    const own = found[0];
    if (!own) return undefined;
    const oid = String(own[0]);
    const stored = String(own[1]);
    const columns = await this.columns(oid);
    if (own[2] === 'v' || own[2] === 'm') {
      const createSql = `CREATE VIEW ${stored} AS ${String(own[3] ?? '').trim()}`;
      return viewDescription(
        stored,
        columns.map((column) => this.column(column)),
        createSql,
      );
    }
    const primaryKey = columns
      .filter((column) => column.primary > 0)
      .sort((a, b) => a.primary - b.primary)
      .map((column) => column.name);
    const pristine = this.pristine.tables.get(stored.toLowerCase());
    if (
      pristine &&
      stored === pgIdentifier(pristine.table.name) &&
      this.unchanged(pristine, columns, primaryKey)
    ) {
      return { ...pristine.table, kind: 'table' };
    }
    return {
      name: stored,
      kind: 'table',
      columns: columns.map((column) => this.column(column, pristine)),
      primaryKey,
      indexes: (await this.indexes(oid)).map((index) =>
        pristine
          ? modelIndexName(index, pristine.table, (model, i) => pgIndexName(pristine.table, model, i))
          : index,
      ),
      foreignKeys: await this.foreignKeys(oid),
    };
  }

  /** Whether a dump table still has the columns (names, types, in order) and primary key it was built with. */
  private unchanged(
    pristine: PristineTable,
    columns: readonly RawColumn[],
    primaryKey: readonly string[],
  ): boolean {
    const model = pristine.columns;
    if (model.length === 0 || model.length !== columns.length) return false;
    const same = columns.every((column, i) => {
      const expected = model[i];
      return (
        expected !== undefined && expected.name === column.name && expected.type === normalType(column.type)
      );
    });
    const key = pristine.table.primaryKey.map(pgIdentifier);
    return same && key.length === primaryKey.length && key.every((column, i) => column === primaryKey[i]);
  }

  private async columns(oid: string): Promise<RawColumn[]> {
    const rows = await this.run(
      `SELECT a.attname::text, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_catalog.pg_get_expr(d.adbin, d.adrelid), a.attidentity <> '' OR coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid) LIKE 'nextval(%', false), coalesce((SELECT k.ord FROM pg_catalog.pg_index i CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) WHERE i.indrelid = a.attrelid AND i.indisprimary AND k.attnum = a.attnum), 0) FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attrelid = ${oid} AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    );
    return rows.map(([name, type, notNull, dflt, identity, primary]) => ({
      name: String(name),
      type: String(type),
      notNull: notNull === true,
      default: dflt === null || dflt === undefined ? null : String(dflt),
      identity: identity === true,
      primary: Number(primary ?? 0),
    }));
  }

  /**
   * One column in the dump model's form: a column of a changed dump table that still has the type
   * the engine gave it keeps the dump's MySQL type, default and AUTO_INCREMENT.
   */
  private column(raw: RawColumn, pristine?: PristineTable): DumpColumn {
    if (pristine) {
      const position = pristine.columns.findIndex((column) => column.name === raw.name);
      const model = pristine.table.columns[position];
      if (model && pristine.columns[position]?.type === normalType(raw.type)) {
        const { name: _name, ...kept } = model;
        return { ...kept, name: raw.name, notNull: raw.notNull };
      }
    }
    const value = raw.identity ? undefined : defaultOfPostgres(raw.default);
    return {
      name: raw.name,
      mysqlType: mysqlTypeOfPostgres(raw.type),
      notNull: raw.notNull,
      ...(value !== undefined && value.kind !== 'null' ? { default: value } : {}),
      autoIncrement: raw.identity,
    };
  }

  private async indexes(oid: string): Promise<DumpIndex[]> {
    const rows = await this.run(
      `SELECT ci.relname::text, i.indisunique, k.ord, a.attname::text FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ci ON ci.oid = i.indexrelid CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum WHERE i.indrelid = ${oid} AND NOT i.indisprimary AND k.ord <= i.indnkeyatts ORDER BY ci.oid, k.ord`,
    );
    return groupIndexes(
      rows.map(([name, unique, , column]) => ({
        key: String(name),
        name: String(name),
        unique: unique === true,
        column: column === null || column === undefined ? null : String(column),
      })),
    );
  }

  private async foreignKeys(oid: string): Promise<DumpForeignKey[]> {
    const rows = await this.run(
      `SELECT con.conname::text, rc.relname::text, a.attname::text, ra.attname::text FROM pg_catalog.pg_constraint con CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(col, refcol, ord) JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.col JOIN pg_catalog.pg_class rc ON rc.oid = con.confrelid JOIN pg_catalog.pg_attribute ra ON ra.attrelid = con.confrelid AND ra.attnum = k.refcol WHERE con.conrelid = ${oid} AND con.contype = 'f' ORDER BY con.oid, k.ord`,
    );
    return groupForeignKeys(
      rows.map(([name, refTable, from, to]) => ({
        key: String(name),
        refTable: String(refTable),
        from: String(from),
        to: String(to),
      })),
    );
  }
}

/** The name the engine gave a dump index in PostgreSQL: `<table>_<name>` (see `postgres-schema.ts`). */
function pgIndexName(table: DumpTable, model: DumpIndex, position: number): string {
  return objectName([pgIdentifier(table.name), model.name ?? `key${position + 1}`], 63);
}
