import type { DumpColumn, DumpForeignKey, DumpIndex } from '../dump/dump-model.js';
import { isKeyword, type SqlToken } from '../dump/sql-token.js';
import { tokenizeSql } from '../dump/tokenize-sql.js';
import type { ErrorOutcome, RowsOutcome } from '../engine/sql-engine.js';

/**
 * MySQL-style introspection for engines that are not MySQL: a compatibility layer, not a MySQL
 * implementation.
 *
 * The paper's agents were told they talk to MySQL, and they (and the recorded trajectories this
 * project replays) look at a database with MySQL's own statements, which SQLite and PostgreSQL do
 * not have. An engine recognises those statements with {@link recognizeMysqlIntrospection} before
 * they reach its database and answers them with {@link answerMysqlIntrospection}, from a
 * {@link MysqlCatalogue} it implements (list the tables, describe one table). The answers have the
 * columns and values MySQL 8 gives (as its client library reports them; MySQL's byte strings for
 * `Type` and `Default` are plain strings here).
 *
 * Statements covered (keywords case-insensitive, names bare or quoted, a final `;` allowed):
 * - `SHOW [FULL] TABLES [{FROM | IN} db] [LIKE 'pattern']`: one column `Tables_in_<db>` (with
 *   ` (<pattern>)` appended under LIKE, as MySQL does), plus `Table_type` (`BASE TABLE`, `VIEW`)
 *   with FULL; names sorted.
 * - `SHOW {DATABASES | SCHEMAS} [LIKE 'pattern']`: column `Database`: `information_schema` and the
 *   session's database (the only ones a session reaches).
 * - `{DESCRIBE | DESC | EXPLAIN} t [column | 'pattern']`, `SHOW [EXTENDED] [FULL] {COLUMNS | FIELDS}
 *   {FROM | IN} t [{FROM | IN} db] [LIKE 'pattern']`: `Field, Type, Null, Key, Default, Extra`;
 *   with FULL also `Collation, Privileges, Comment` (MySQL's column order). `Key` is `PRI` for every
 *   column of the primary key (or, without one, of the first UNIQUE key whose columns are all NOT
 *   NULL), `UNI` for the column of a one-column UNIQUE key, `MUL` for the first column of any other
 *   key; a foreign key without a key starting with its columns gets one, as InnoDB adds it.
 *   `Extra` is `auto_increment`, or `DEFAULT_GENERATED` for an expression default.
 * - `SHOW CREATE TABLE t`: `Table, Create Table` (for a view: `View, Create View,
 *   character_set_client, collation_connection`).
 * - `SHOW [EXTENDED] {INDEX | INDEXES | KEYS} {FROM | IN} t [{FROM | IN} db]`: MySQL 8's 15
 *   columns, `PRIMARY` first, then unique keys, then the others; `Cardinality` is NULL (no
 *   statistics are kept).
 * `EXPLAIN SELECT …`, `DESCRIBE SELECT …` and SQLite's `EXPLAIN QUERY PLAN …` are not the table
 * form: they are left to the engine.
 * `t` may be qualified (`db.t`). A table that does not exist is MySQL's error 1146
 * (`ER_NO_SUCH_TABLE`, `Table '<db>.<t>' doesn't exist`); another database is `ER_BAD_DB_ERROR`
 * for `SHOW TABLES FROM` and 1146 for a table in it. A `WHERE` filter, and every other `SHOW`
 * statement, is an error that names what is covered (`ER_NOT_SUPPORTED_YET`); engines where `SHOW`
 * means something of their own (PostgreSQL's `SHOW setting`) pass `unsupported` statements on.
 *
 * Names follow the paper's server, which ran with `lower_case_table_names=1`: database and table
 * names are shown in lower case and matched case-insensitively (option `lowerCaseTableNames`).
 * Not covered: `information_schema` queries, `SHOW TABLE STATUS`, `SHOW VARIABLES` and the like,
 * column comments and `ON UPDATE` clauses (the dump model does not keep them).
 *
 * @packageDocumentation
 */

/** A table or view as the catalogue lists it. */
export interface CatalogueTable {
  readonly name: string;
  readonly kind: 'table' | 'view';
}

/** What introspection needs of one table: the dump model's shape (a `DumpTable` fits as is). */
export interface TableDescription {
  /** The name as the engine stores it. */
  readonly name: string;
  readonly kind?: 'table' | 'view';
  /** Columns in order, each with its MySQL type (normalised as `DumpColumn.mysqlType`). */
  readonly columns: readonly DumpColumn[];
  readonly primaryKey: readonly string[];
  readonly indexes: readonly DumpIndex[];
  readonly foreignKeys: readonly DumpForeignKey[];
  /** Table default collation. */
  readonly collation?: string;
  /**
   * MySQL's own `CREATE TABLE` text for the table, when the engine has it (the dump's, for a table
   * unchanged since); otherwise `SHOW CREATE TABLE` writes one from the description. For a view,
   * the engine's `CREATE VIEW` text.
   */
  readonly createSql?: string;
}

/**
 * The engine side of introspection: what the session's database holds now (tables the agent
 * created or changed included).
 */
export interface MysqlCatalogue {
  /** The session's database, as the dump spells it. */
  readonly database: string;
  /** The database's default collation (`CREATE DATABASE … COLLATE`), when known. */
  readonly databaseCollation?: string;
  /** Every table and view of the database, in any order. */
  listTables(): Promise<readonly CatalogueTable[]>;
  /** One table or view, its name matched case-insensitively; undefined when there is none. */
  describeTable(name: string): Promise<TableDescription | undefined>;
}

/** A recognised introspection statement. */
export type IntrospectionStatement =
  | {
      readonly kind: 'show-tables';
      readonly full: boolean;
      readonly database?: string;
      readonly like?: string;
    }
  | { readonly kind: 'show-databases'; readonly like?: string }
  | {
      readonly kind: 'show-columns';
      readonly table: string;
      readonly database?: string;
      readonly full: boolean;
      /** LIKE pattern on column names (DESCRIBE's column argument is one too). */
      readonly like?: string;
    }
  | { readonly kind: 'show-create-table'; readonly table: string; readonly database?: string }
  | { readonly kind: 'show-index'; readonly table: string; readonly database?: string }
  /** A `SHOW` statement (or a filter) the layer does not cover; `message` names what is covered. */
  | { readonly kind: 'unsupported'; readonly message: string };

/** An introspection answer: rows or an error (the engine adds the duration). */
export type IntrospectionOutcome = Omit<RowsOutcome, 'durationMs'> | Omit<ErrorOutcome, 'durationMs'>;

export interface IntrospectionOptions {
  /** Show database and table names in lower case, as a MySQL server with `lower_case_table_names=1` (default true). */
  readonly lowerCaseTableNames?: boolean;
}

const COVERED =
  'SHOW TABLES, SHOW DATABASES, DESCRIBE t, SHOW [FULL] COLUMNS FROM t, SHOW CREATE TABLE t, SHOW INDEX FROM t';

/** Words after DESCRIBE/EXPLAIN that start MySQL's statement form (`EXPLAIN SELECT …`), not the table form. */
const EXPLAIN_STATEMENT = new Set([
  'SELECT',
  'WITH',
  'INSERT',
  'UPDATE',
  'DELETE',
  'REPLACE',
  'TABLE',
  'VALUES',
  'FORMAT',
  'ANALYZE',
  'EXTENDED',
  'PARTITIONS',
  'FOR',
]);

/** Reads the tokens of one statement; every method returns undefined on a mismatch. */
class Reader {
  private index = 0;

  constructor(private readonly tokens: readonly SqlToken[]) {}

  get done(): boolean {
    return this.index >= this.tokens.length;
  }

  peek(offset = 0): SqlToken | undefined {
    return this.tokens[this.index + offset];
  }

  keyword(...words: string[]): string | undefined {
    const token = this.peek();
    const word = words.find((candidate) => isKeyword(token, candidate));
    if (word) this.index++;
    return word;
  }

  symbol(value: string): boolean {
    const token = this.peek();
    if (token?.kind !== 'symbol' || token.value !== value) return false;
    this.index++;
    return true;
  }

  /** A bare or quoted name. */
  name(): string | undefined {
    const token = this.peek();
    if (token?.kind !== 'word' && token?.kind !== 'quoted-identifier') return undefined;
    this.index++;
    return token.value;
  }

  /** `name` or `db.name`. */
  qualifiedName(): { name: string; database?: string } | undefined {
    const first = this.name();
    if (first === undefined) return undefined;
    if (!this.symbol('.')) return { name: first };
    const second = this.name();
    return second === undefined ? undefined : { name: second, database: first };
  }

  /** A string: `'x'`, or `"x"` (a string in MySQL, whatever the engine's tokenizer made of it). */
  string(): string | undefined {
    const token = this.peek();
    if (token?.kind !== 'string' && !(token?.kind === 'quoted-identifier' && token.text.startsWith('"')))
      return undefined;
    this.index++;
    return token.value;
  }
}

type Filter = { like?: string } | { unsupported: string } | undefined;

/** `[LIKE 'pattern' | WHERE …]` at the end of a SHOW statement; undefined when something else follows. */
function filter(reader: Reader, statement: string): Filter {
  if (reader.done) return {};
  if (reader.keyword('LIKE')) {
    const pattern = reader.string();
    return pattern !== undefined && reader.done ? { like: pattern } : undefined;
  }
  if (reader.keyword('WHERE')) {
    return {
      unsupported: `${statement} … WHERE is not supported by this engine's MySQL compatibility layer; use LIKE 'pattern'`,
    };
  }
  return undefined;
}

function unsupported(tokens: readonly SqlToken[]): IntrospectionStatement {
  const words = tokens
    .slice(0, 3)
    .filter((token) => token.kind === 'word')
    .map((token) => token.value.toUpperCase());
  return {
    kind: 'unsupported',
    message: `${words.join(' ')} is not supported by this engine's MySQL compatibility layer (it answers ${COVERED})`,
  };
}

function parseShow(tokens: readonly SqlToken[]): IntrospectionStatement | undefined {
  const reader = new Reader(tokens);
  reader.keyword('SHOW');
  if (reader.keyword('DATABASES', 'SCHEMAS')) {
    const tail = filter(reader, 'SHOW DATABASES');
    if (!tail) return undefined;
    if ('unsupported' in tail) return { kind: 'unsupported', message: tail.unsupported };
    return { kind: 'show-databases', ...tail };
  }
  if (reader.keyword('CREATE')) {
    if (!reader.keyword('TABLE')) return undefined;
    const table = reader.qualifiedName();
    return table && reader.done
      ? { kind: 'show-create-table', table: table.name, ...dbOf(table) }
      : undefined;
  }
  const extended = Boolean(reader.keyword('EXTENDED'));
  const full = Boolean(reader.keyword('FULL'));
  if (!extended && reader.keyword('TABLES')) {
    let database: string | undefined;
    if (reader.keyword('FROM', 'IN')) {
      database = reader.name();
      if (database === undefined) return undefined;
    }
    const tail = filter(reader, 'SHOW TABLES');
    if (!tail) return undefined;
    if ('unsupported' in tail) return { kind: 'unsupported', message: tail.unsupported };
    return { kind: 'show-tables', full, ...(database !== undefined ? { database } : {}), ...tail };
  }
  const what = reader.keyword('COLUMNS', 'FIELDS', 'INDEX', 'INDEXES', 'KEYS');
  if (!what || (full && what !== 'COLUMNS' && what !== 'FIELDS')) return undefined;
  if (!reader.keyword('FROM', 'IN')) return undefined;
  const table = reader.qualifiedName();
  if (!table) return undefined;
  let database = table.database;
  if (reader.keyword('FROM', 'IN')) {
    database = reader.name();
    if (database === undefined) return undefined;
  }
  const where = database !== undefined ? { database } : {};
  if (what === 'COLUMNS' || what === 'FIELDS') {
    const tail = filter(reader, 'SHOW COLUMNS');
    if (!tail) return undefined;
    if ('unsupported' in tail) return { kind: 'unsupported', message: tail.unsupported };
    return { kind: 'show-columns', table: table.name, full, ...where, ...tail };
  }
  const tail = filter(reader, 'SHOW INDEX');
  if (!tail || 'like' in tail) return undefined;
  if ('unsupported' in tail) return { kind: 'unsupported', message: tail.unsupported };
  return { kind: 'show-index', table: table.name, ...where };
}

function dbOf(name: { database?: string }): { database?: string } {
  return name.database !== undefined ? { database: name.database } : {};
}

/** `{DESCRIBE | DESC | EXPLAIN} t [column | 'pattern']`; undefined for the statement form. */
function parseDescribe(tokens: readonly SqlToken[]): IntrospectionStatement | undefined {
  const reader = new Reader(tokens);
  reader.keyword('DESCRIBE', 'DESC', 'EXPLAIN');
  const next = reader.peek();
  if (next?.kind === 'word' && EXPLAIN_STATEMENT.has(next.value.toUpperCase())) return undefined;
  if (isKeyword(next, 'QUERY') && isKeyword(reader.peek(1), 'PLAN')) return undefined;
  const table = reader.qualifiedName();
  if (!table) return undefined;
  let like: string | undefined;
  if (!reader.done) {
    like = reader.string() ?? reader.name();
    if (like === undefined || !reader.done) return undefined;
  }
  return {
    kind: 'show-columns',
    table: table.name,
    full: false,
    ...dbOf(table),
    ...(like !== undefined ? { like } : {}),
  };
}

/**
 * The introspection statement the tokens (one statement's code tokens, comments dropped) spell, or
 * undefined when they are something else (including `EXPLAIN SELECT …` and SQLite's
 * `EXPLAIN QUERY PLAN …`). Any other `SHOW …` is `unsupported`.
 */
export function recognizeMysqlIntrospection(tokens: readonly SqlToken[]): IntrospectionStatement | undefined {
  const first = tokens[0];
  if (isKeyword(first, 'SHOW')) return parseShow(tokens) ?? unsupported(tokens);
  if (isKeyword(first, 'DESCRIBE') || isKeyword(first, 'DESC') || isKeyword(first, 'EXPLAIN'))
    return parseDescribe(tokens);
  return undefined;
}

/** MySQL's LIKE as a regular expression: `%`, `_`, `\` escapes; case-insensitive (the names' collation). */
export function likePattern(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === '\\' && i + 1 < pattern.length) {
      i++;
      source += (pattern[i] as string).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    } else if (char === '%') source += '.*';
    else if (char === '_') source += '.';
    else source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'is');
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

/** Types whose values have a character set (and so a collation). */
const CHARACTER_TYPES = /^(char|varchar|tinytext|text|mediumtext|longtext|enum|set|national|long varchar)\b/;
/** Types MySQL allows no literal default on, so `SHOW CREATE TABLE` writes no `DEFAULT NULL`. */
const NO_DEFAULT_TYPES =
  /^(tinytext|text|mediumtext|longtext|tinyblob|blob|mediumblob|longblob|json|geometry)\b/;
const NOW = /^(current_timestamp|now|localtimestamp|localtime)(\((\d*)\))?$/i;

/** The `Default` value of a column as MySQL shows it (a string, or null). */
function defaultText(column: DumpColumn): string | null {
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

function extraText(column: DumpColumn): string {
  if (column.autoIncrement) return 'auto_increment';
  return column.default?.kind === 'expression' ? 'DEFAULT_GENERATED' : '';
}

/** One key of a table as MySQL holds it (the primary key, declared keys, keys InnoDB adds for foreign keys). */
interface Key {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
  readonly primary: boolean;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The table's keys in MySQL's order: PRIMARY, unique keys without nullable columns, other unique keys, the rest. */
function keysOf(table: TableDescription): Key[] {
  const notNull = (name: string) =>
    table.primaryKey.some((column) => same(column, name)) ||
    table.columns.some((column) => same(column.name, name) && column.notNull);
  const used = new Set<string>();
  const declared: Key[] = [];
  if (table.primaryKey.length > 0) {
    declared.push({ name: 'PRIMARY', columns: table.primaryKey, unique: true, primary: true });
    used.add('primary');
  }
  const uniqueName = (base: string) => {
    let name = base;
    for (let n = 2; used.has(name.toLowerCase()); n++) name = `${base}_${n}`;
    used.add(name.toLowerCase());
    return name;
  };
  for (const index of table.indexes) {
    if (index.columns.length === 0) continue;
    declared.push({
      name: uniqueName(index.name ?? (index.columns[0] as string)),
      columns: index.columns,
      unique: index.unique,
      primary: false,
    });
  }
  for (const foreign of table.foreignKeys) {
    const covered = declared.some(
      (key) =>
        key.columns.length >= foreign.columns.length &&
        foreign.columns.every((column, i) => same(column, key.columns[i] ?? '')),
    );
    if (covered || foreign.columns.length === 0) continue;
    declared.push({
      name: uniqueName(foreign.name ?? (foreign.columns[0] as string)),
      columns: foreign.columns,
      unique: false,
      primary: false,
    });
  }
  const rank = (key: Key) => (key.primary ? 0 : key.unique ? (key.columns.every(notNull) ? 1 : 2) : 3);
  return declared
    .map((key, order) => ({ key, order }))
    .sort((a, b) => rank(a.key) - rank(b.key) || a.order - b.order)
    .map(({ key }) => key);
}

/** `PRI`, `UNI`, `MUL` or '' for each column (by lower-cased name). */
function columnKeys(table: TableDescription, keys: readonly Key[]): Map<string, string> {
  const marks = new Map<string, string>();
  const mark = (column: string, value: string) => {
    const name = column.toLowerCase();
    const order = ['PRI', 'UNI', 'MUL', ''];
    const current = marks.get(name) ?? '';
    if (order.indexOf(value) < order.indexOf(current)) marks.set(name, value);
  };
  const notNull = (name: string) => table.columns.some((column) => same(column.name, name) && column.notNull);
  const primary =
    keys.find((key) => key.primary) ?? keys.find((key) => key.unique && key.columns.every(notNull));
  for (const column of primary?.columns ?? []) mark(column, 'PRI');
  for (const key of keys) {
    if (key === primary) continue;
    const [first] = key.columns;
    if (first === undefined) continue;
    mark(first, key.unique && key.columns.length === 1 ? 'UNI' : 'MUL');
  }
  return marks;
}

function collationOf(column: DumpColumn, table: TableDescription, catalogue: MysqlCatalogue): string | null {
  if (!CHARACTER_TYPES.test(column.mysqlType)) return null;
  return column.collation ?? table.collation ?? catalogue.databaseCollation ?? 'utf8mb4_0900_ai_ci';
}

function quoteName(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

function quoteString(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** A `CREATE TABLE` as MySQL 8's SHOW CREATE TABLE writes it, from a description. */
function createTableText(
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
function renameCreateText(text: string, rename: (n: string) => string): string {
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
