import { isKeyword, type SqlToken } from '../dump/sql-token.js';

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

/** The statements the compatibility layer answers, for messages. */
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
