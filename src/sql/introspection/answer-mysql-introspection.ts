import type { DumpColumn } from '../dump/dump-model.js';
import type { SqlToken } from '../dump/sql-token.js';
import type { ErrorOutcome, RowsOutcome } from '../engine/sql-engine.js';
import { collationOf, defaultText, extraText } from './column-display.js';
import { createTableText, renameCreateText } from './create-table-text.js';
import type { MysqlCatalogue, TableDescription } from './mysql-catalogue.js';
import { likePattern } from './mysql-like-pattern.js';
import { type IntrospectionStatement, recognizeMysqlIntrospection } from './recognize-mysql-introspection.js';
import { columnKeys, keysOf, same } from './table-keys.js';

/**
 * MySQL-style introspection for engines that are not MySQL: a compatibility layer, not a MySQL
 * implementation. The paper's agents were told they talk to MySQL, and they (and the recorded
 * trajectories this project replays) look at a database with MySQL's own statements, which SQLite
 * and PostgreSQL do not have. An engine recognises those statements with
 * {@link recognizeMysqlIntrospection} before they reach its database and answers them with
 * {@link answerMysqlIntrospection}, from a {@link MysqlCatalogue} it implements. The answers have
 * the columns and values MySQL 8 gives. The statements covered, and what is not, are listed in
 * `docs/architecture/sql-engines.md` ("Introspection emulation").
 *
 * @packageDocumentation
 */

/** An introspection answer: rows or an error (the engine adds the duration). */
export type IntrospectionOutcome = Omit<RowsOutcome, 'durationMs'> | Omit<ErrorOutcome, 'durationMs'>;

export interface IntrospectionOptions {
  /** Show database and table names in lower case, as a MySQL server with `lower_case_table_names=1` (default true). */
  readonly lowerCaseTableNames?: boolean;
}

function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function noSuchTable(database: string, table: string): Omit<ErrorOutcome, 'durationMs'> {
  return { kind: 'error', message: `Table '${database}.${table}' doesn't exist`, code: 'ER_NO_SUCH_TABLE' };
}

function rowsOutcome(columns: string[], rows: unknown[][]): Omit<RowsOutcome, 'durationMs'> {
  return { kind: 'rows', columns, rows, totalRows: rows.length, truncated: false };
}

/**
 * The answer to an introspection statement, from the catalogue; integers are `bigint`.
 * `unsupported` statements answer `ER_NOT_SUPPORTED_YET` with their message.
 */
export async function answerMysqlIntrospection(
  statement: IntrospectionStatement,
  catalogue: MysqlCatalogue,
  options: IntrospectionOptions = {},
): Promise<IntrospectionOutcome> {
  const lower = options.lowerCaseTableNames ?? true;
  const shown = (name: string) => (lower ? name.toLowerCase() : name);
  const database = shown(catalogue.database);
  const isOurs = (name: string | undefined) => name === undefined || same(name, catalogue.database);

  const describe = async (
    table: string,
    db: string | undefined,
  ): Promise<{ error: Omit<ErrorOutcome, 'durationMs'> } | { description: TableDescription }> => {
    if (!isOurs(db)) return { error: noSuchTable(shown(db as string), shown(table)) };
    const description = await catalogue.describeTable(table);
    if (!description) return { error: noSuchTable(database, shown(table)) };
    return { description };
  };

  switch (statement.kind) {
    case 'unsupported':
      return { kind: 'error', message: statement.message, code: 'ER_NOT_SUPPORTED_YET' };
    case 'show-databases': {
      const names = ['information_schema', database].sort(compareCodePoints);
      const like = statement.like === undefined ? undefined : likePattern(statement.like);
      const column = statement.like === undefined ? 'Database' : `Database (${statement.like})`;
      return rowsOutcome(
        [column],
        names.filter((name) => !like || like.test(name)).map((name) => [name]),
      );
    }
    case 'show-tables': {
      if (!isOurs(statement.database)) {
        return {
          kind: 'error',
          message: `Unknown database '${shown(statement.database as string)}'`,
          code: 'ER_BAD_DB_ERROR',
        };
      }
      const like = statement.like === undefined ? undefined : likePattern(statement.like);
      const tables = (await catalogue.listTables())
        .map((table) => ({ name: shown(table.name), kind: table.kind }))
        .filter((table) => !like || like.test(table.name))
        .sort((a, b) => compareCodePoints(a.name, b.name));
      const first = `Tables_in_${database}${statement.like === undefined ? '' : ` (${statement.like})`}`;
      if (!statement.full)
        return rowsOutcome(
          [first],
          tables.map((table) => [table.name]),
        );
      return rowsOutcome(
        [first, 'Table_type'],
        tables.map((table) => [table.name, table.kind === 'view' ? 'VIEW' : 'BASE TABLE']),
      );
    }
    case 'show-columns': {
      const found = await describe(statement.table, statement.database);
      if ('error' in found) return found.error;
      const table = found.description;
      const keys = columnKeys(table, keysOf(table));
      const like = statement.like === undefined ? undefined : likePattern(statement.like);
      const columns = table.columns.filter((column) => !like || like.test(column.name));
      const base = (column: DumpColumn) => ({
        type: column.mysqlType,
        nullable: column.notNull || keys.get(column.name.toLowerCase()) === 'PRI' ? 'NO' : 'YES',
        key: keys.get(column.name.toLowerCase()) ?? '',
        default: defaultText(column),
        extra: extraText(column),
      });
      if (!statement.full) {
        return rowsOutcome(
          ['Field', 'Type', 'Null', 'Key', 'Default', 'Extra'],
          columns.map((column) => {
            const b = base(column);
            return [column.name, b.type, b.nullable, b.key, b.default, b.extra];
          }),
        );
      }
      return rowsOutcome(
        ['Field', 'Type', 'Collation', 'Null', 'Key', 'Default', 'Extra', 'Privileges', 'Comment'],
        columns.map((column) => {
          const b = base(column);
          return [
            column.name,
            b.type,
            collationOf(column, table, catalogue),
            b.nullable,
            b.key,
            b.default,
            b.extra,
            'select,insert,update,references',
            '',
          ];
        }),
      );
    }
    case 'show-create-table': {
      const found = await describe(statement.table, statement.database);
      if ('error' in found) return found.error;
      const table = found.description;
      const name = shown(table.name);
      if (table.kind === 'view') {
        return rowsOutcome(
          ['View', 'Create View', 'character_set_client', 'collation_connection'],
          [[name, table.createSql ?? '', 'utf8mb4', 'utf8mb4_0900_ai_ci']],
        );
      }
      const text =
        table.createSql !== undefined
          ? renameCreateText(table.createSql, shown)
          : createTableText(table, name, keysOf(table), shown);
      return rowsOutcome(['Table', 'Create Table'], [[name, text]]);
    }
    case 'show-index': {
      const found = await describe(statement.table, statement.database);
      if ('error' in found) return found.error;
      const table = found.description;
      const name = shown(table.name);
      const nullable = (column: string) =>
        table.columns.some((c) => same(c.name, column) && !c.notNull) &&
        !table.primaryKey.some((key) => same(key, column));
      const rows: unknown[][] = [];
      for (const key of keysOf(table)) {
        key.columns.forEach((column, i) => {
          const spelled = table.columns.find((c) => same(c.name, column))?.name ?? column;
          rows.push([
            name,
            key.unique ? 0n : 1n,
            key.name,
            BigInt(i + 1),
            spelled,
            'A',
            null,
            null,
            null,
            nullable(column) ? 'YES' : '',
            'BTREE',
            '',
            '',
            'YES',
            null,
          ]);
        });
      }
      return rowsOutcome(
        [
          'Table',
          'Non_unique',
          'Key_name',
          'Seq_in_index',
          'Column_name',
          'Collation',
          'Cardinality',
          'Sub_part',
          'Packed',
          'Null',
          'Index_type',
          'Comment',
          'Index_comment',
          'Visible',
          'Expression',
        ],
        rows,
      );
    }
  }
}

/**
 * {@link recognizeMysqlIntrospection} then {@link answerMysqlIntrospection}: the answer, or
 * undefined when the statement is none of the covered ones.
 */
export async function mysqlIntrospection(
  tokens: readonly SqlToken[],
  catalogue: MysqlCatalogue,
  options: IntrospectionOptions = {},
): Promise<IntrospectionOutcome | undefined> {
  const statement = recognizeMysqlIntrospection(tokens);
  return statement ? answerMysqlIntrospection(statement, catalogue, options) : undefined;
}

/** Keeps at most `maxRows` rows of an answer (the engine's row limit), counting the rest. */
export function limitIntrospectionRows(outcome: IntrospectionOutcome, maxRows: number): IntrospectionOutcome {
  if (outcome.kind !== 'rows' || outcome.rows.length <= maxRows) return outcome;
  return { ...outcome, rows: outcome.rows.slice(0, Math.max(0, maxRows)), truncated: true };
}
