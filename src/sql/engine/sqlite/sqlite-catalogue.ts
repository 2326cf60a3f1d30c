import type {
  DumpColumn,
  DumpDatabase,
  DumpForeignKey,
  DumpIndex,
  DumpTable,
} from '../../dump/dump-model.js';
import { parseMysqlType } from '../../dump/mysql-column-type.js';
import { numberLiteral } from '../../dump/sql-literal.js';
import { TokenCursor } from '../../dump/token-cursor.js';
import { tokenizeSql } from '../../dump/tokenize-sql.js';
import { groupForeignKeys, groupIndexes, modelIndexName } from '../../introspection/catalogue-keys.js';
import type { CatalogueTable, TableDescription } from '../../introspection/mysql-catalogue.js';
import {
  PristineCatalogue,
  type PristineSchema,
  pristineSchema,
  viewDescription,
} from '../../introspection/pristine-catalogue.js';
import { sqliteColumnType, sqliteCreateIndexes, sqliteCreateTable } from './sqlite-schema.js';

/** What the engine built of a dump table: its SQLite schema text (to tell whether it changed since). */
interface BuiltSignature {
  readonly signature: string;
}

/** What a session's catalogue knows of its pristine database: the dump model of each table. */
export type SqlitePristineSchema = PristineSchema<BuiltSignature>;

/** The schema text of one table: its `CREATE TABLE` and its `CREATE INDEX` statements, in any order. */
function signature(tableSql: string, indexSqls: readonly string[]): string {
  return JSON.stringify([tableSql, ...[...indexSqls].sort()]);
}

/** The pristine schema of a dump database, as the SQLite engine builds it (see `sqlite-schema.ts`). */
export function sqlitePristineSchema(database: DumpDatabase): SqlitePristineSchema {
  return pristineSchema(database, (table) => {
    try {
      return { signature: signature(sqliteCreateTable(table), sqliteCreateIndexes(table)) };
    } catch {
      // A table the converter cannot write is not in the database either; never matches.
      return { signature: '' };
    }
  });
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** A SQLite declared type as a MySQL type (`INTEGER` → `int`, `VARCHAR(20)` → `varchar(20)`, `REAL` → `double`). */
export function mysqlTypeOfSqlite(declared: string): string {
  const text = declared.trim();
  if (text === '') return 'text';
  if (/^num$/i.test(text)) return 'decimal(10,0)';
  try {
    const cursor = new TokenCursor(tokenizeSql(text, 'mysql'), 1);
    const type = parseMysqlType(cursor);
    if (cursor.done) return type;
  } catch {
    // Not a MySQL type: shown as written.
  }
  return text.toLowerCase().replace(/\s+/g, ' ');
}

const NOW_WORDS = new Set(['CURRENT_TIMESTAMP', 'CURRENT_DATE', 'CURRENT_TIME']);

/** A column default as SQLite reports it (`'x'`, `-1`, `NULL`, `CURRENT_TIMESTAMP`, `(expr)`) in the dump model's form. */
export function defaultOfSqlite(text: string | null): DumpColumn['default'] {
  if (text === null) return undefined;
  const tokens = tokenizeSql(text, 'sqlite').filter((token) => token.kind !== 'comment');
  const [first, second] = tokens;
  if (first && tokens.length === 1) {
    if (first.kind === 'string') return { kind: 'string', value: first.value };
    if (first.kind === 'number') return numberLiteral(first.text) ?? { kind: 'expression', text };
    if (first.kind === 'blob') return { kind: 'bytes', hex: first.value.toUpperCase() };
    if (first.kind === 'word' && first.value.toUpperCase() === 'NULL') return { kind: 'null' };
    if (first.kind === 'word' && NOW_WORDS.has(first.value.toUpperCase()))
      return { kind: 'expression', text: first.value.toUpperCase() };
  }
  if (first?.kind === 'symbol' && (first.value === '-' || first.value === '+') && second?.kind === 'number') {
    const number =
      tokens.length === 2 ? numberLiteral(`${first.value === '-' ? '-' : ''}${second.text}`) : undefined;
    if (number) return number;
  }
  return { kind: 'expression', text };
}

/**
 * A column of a changed dump table as the dump model has it, when SQLite still holds it with the type
 * the engine gave it (the MySQL type, default and AUTO_INCREMENT are then the dump's); else as is.
 */
function fromModel(column: DumpColumn & { readonly declared?: string }, table: DumpTable): DumpColumn {
  const { declared, ...rest } = column;
  const model = table.columns.find((candidate) => candidate.name.toLowerCase() === column.name.toLowerCase());
  if (!model || declared === undefined) return rest;
  let built: string;
  try {
    built = sqliteColumnType(model, table.collation).declared;
  } catch {
    return rest;
  }
  if (built.toLowerCase() !== declared.toLowerCase()) return rest;
  const { name: _name, ...kept } = model;
  return { ...kept, name: column.name, notNull: column.notNull };
}

/** The name the engine gave a dump index in SQLite: `<table>__<name>` (see `sqlite-schema.ts`). */
function sqliteIndexName(table: DumpTable, model: DumpIndex, position: number): string {
  return `${table.name}__${model.name ?? `key${position + 1}`}`;
}

/**
 * The SQLite engine's side of MySQL introspection (see `answer-mysql-introspection.ts`) for one session:
 * tables as they are now in the session's database (`sqlite_schema`). A table whose schema text is
 * still the one the engine built is described from the dump model (MySQL types, defaults,
 * AUTO_INCREMENT, keys and the dump's own `CREATE TABLE`); a table the agent created or changed
 * (`ALTER TABLE`, a new index) from SQLite's pragmas (`table_info`, `index_list`/`index_info`,
 * `foreign_key_list`), with SQLite's declared types read as MySQL types. A single-column
 * `INTEGER PRIMARY KEY` counts as `auto_increment` (SQLite numbers it when NULL is inserted).
 * Temporary tables are not listed.
 */
export class SqliteCatalogue extends PristineCatalogue<BuiltSignature> {
  async listTables(): Promise<readonly CatalogueTable[]> {
    const rows = await this.run(
      "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    );
    return rows.map(([name, type]) => ({ name: String(name), kind: type === 'view' ? 'view' : 'table' }));
  }

  async describeTable(name: string): Promise<TableDescription | undefined> {
    const rows = await this.run(
      `SELECT type, name, sql FROM sqlite_schema WHERE tbl_name = ${literal(name)} COLLATE NOCASE AND type IN ('table', 'view', 'index') AND sql IS NOT NULL`,
    );
    const own = rows.find(([type]) => type === 'table' || type === 'view');
    if (!own) return undefined;
    const stored = String(own[1]);
    const sql = String(own[2]);
    if (own[0] === 'view') return viewDescription(stored, (await this.columns(stored, sql)).columns, sql);
    const pristine = this.pristine.tables.get(stored.toLowerCase());
    const indexSqls = rows.filter(([type]) => type === 'index').map(([, , text]) => String(text));
    if (pristine && pristine.table.name === stored && pristine.signature === signature(sql, indexSqls)) {
      return { ...pristine.table, kind: 'table' };
    }
    const { columns, primaryKey } = await this.columns(stored, sql);
    return {
      name: stored,
      kind: 'table',
      columns: pristine ? columns.map((column) => fromModel(column, pristine.table)) : columns,
      primaryKey,
      indexes: pristine
        ? (await this.indexes(stored)).map((index) =>
            modelIndexName(index, pristine.table, (model, i) => sqliteIndexName(pristine.table, model, i)),
          )
        : await this.indexes(stored),
      foreignKeys: await this.foreignKeys(stored),
    };
  }

  private async columns(
    table: string,
    sql: string,
  ): Promise<{ columns: DumpColumn[]; primaryKey: string[] }> {
    const rows = await this.run(
      `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(${literal(table)}) ORDER BY cid`,
    );
    const primary = rows
      .filter((row) => Number(row[4]) > 0)
      .sort((a, b) => Number(a[4]) - Number(b[4]))
      .map((row) => String(row[0]));
    const columns = rows.map(([name, type, notNull, dflt]): DumpColumn & { declared: string } => {
      const rowid = primary.length === 1 && primary[0] === name && String(type).toUpperCase() === 'INTEGER';
      const value = defaultOfSqlite(dflt === null || dflt === undefined ? null : String(dflt));
      return {
        name: String(name),
        declared: String(type ?? ''),
        mysqlType: mysqlTypeOfSqlite(String(type ?? '')),
        notNull: Number(notNull) === 1 || primary.includes(String(name)),
        ...(value !== undefined ? { default: value } : {}),
        autoIncrement: rowid || (primary[0] === name && /\bAUTOINCREMENT\b/i.test(sql)),
      };
    });
    return { columns, primaryKey: primary };
  }

  private async indexes(table: string): Promise<DumpIndex[]> {
    const rows = await this.run(
      `SELECT il.seq, il.name, il."unique", il.origin, ii.name FROM pragma_index_list(${literal(table)}) AS il, pragma_index_info(il.name) AS ii ORDER BY il.seq DESC, ii.seqno`,
    );
    return groupIndexes(
      rows
        .filter(([, , , origin]) => origin !== 'pk')
        .map(([, name, unique, , column]) => ({
          key: String(name),
          ...(String(name).startsWith('sqlite_autoindex_') ? {} : { name: String(name) }),
          unique: Number(unique) === 1,
          column: column === null || column === undefined ? null : String(column),
        })),
    );
  }

  private async foreignKeys(table: string): Promise<DumpForeignKey[]> {
    const rows = await this.run(
      `SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(${literal(table)}) ORDER BY id, seq`,
    );
    return groupForeignKeys(
      rows.map(([id, refTable, from, to]) => ({
        key: String(id),
        refTable: String(refTable),
        from: String(from),
        to: to === null || to === undefined ? String(from) : String(to),
      })),
    );
  }
}
