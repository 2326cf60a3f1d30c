import type { SqlStatement } from '../../dump/split-statements.js';
import { isKeyword, type SqlToken } from '../../dump/sql-token.js';

/**
 * Pragmas that only read (schema and diagnostics); allowed in every form, including the
 * `PRAGMA table_info(t)` argument form.
 */
const READ_PRAGMAS = new Set([
  'table_info',
  'table_xinfo',
  'table_list',
  'index_list',
  'index_info',
  'index_xinfo',
  'foreign_key_list',
  'foreign_key_check',
  'database_list',
  'collation_list',
  'function_list',
  'module_list',
  'pragma_list',
  'compile_options',
  'integrity_check',
  'quick_check',
]);

/**
 * Pragmas that only change the session's own connection (undone by `reset`, which opens a new one),
 * allowed to be set; every other pragma may be read (no argument) but not set.
 */
const SESSION_PRAGMAS = new Set([
  'foreign_keys',
  'case_sensitive_like',
  'recursive_triggers',
  'defer_foreign_keys',
]);

/** Pragmas that are refused even as a read, because their read form has effects. */
const REFUSED_PRAGMAS = new Set(['optimize', 'shrink_memory', 'incremental_vacuum', 'wal_checkpoint']);

function word(token: SqlToken | undefined): string {
  return token?.kind === 'word' ? token.value.toLowerCase() : '';
}

function pragmaRefusal(tokens: readonly SqlToken[]): string | undefined {
  let index = 1;
  const schema = tokens[index + 1];
  if (schema?.kind === 'symbol' && schema.value === '.') {
    const name = tokens[index]?.value.toLowerCase();
    if (name !== 'main' && name !== 'temp') return `PRAGMA on schema ${name} is not allowed`;
    index += 2;
  }
  const nameToken = tokens[index];
  const name =
    nameToken?.kind === 'word' || nameToken?.kind === 'quoted-identifier'
      ? nameToken.value.toLowerCase()
      : '';
  const argument = tokens.length > index + 1;
  if (READ_PRAGMAS.has(name)) return undefined;
  if (SESSION_PRAGMAS.has(name)) return undefined;
  if (!argument && name !== '' && !REFUSED_PRAGMAS.has(name)) return undefined;
  return `PRAGMA ${name || '?'} is not allowed: only reading pragmas and ${[...SESSION_PRAGMAS].join(', ')} may be used`;
}

/**
 * Why a SQLite statement is refused, or undefined when it may run. SQLite has no accounts, and
 * better-sqlite3 12 exposes neither an authorizer nor `sqlite3_limit(SQLITE_LIMIT_ATTACHED)`, so
 * the statements that reach files are refused by their first words (SQLite's quoting rules,
 * comments ignored): `ATTACH`/`DETACH` (files outside the session's database), `VACUUM INTO`
 * (writes a file), and every `PRAGMA` except the read-only ones and a few that change only the
 * session's connection. These rules are sound as words: SQLite runs no SQL built at run time (no
 * `EXECUTE`, and a trigger body holds DML only). `load_extension(…)` is SQLite's own refusal ("not
 * authorized": better-sqlite3 turns on only the C API), not a rule here. What is not refused is
 * confined by the engine: the database is an in-memory copy, defensive mode is on (no
 * `writable_schema`, no `sqlite_dbpage` writes), `trusted_schema` is off, temporary storage is in
 * memory, and the process has a memory limit.
 */
export function sqliteRefusal(statement: SqlStatement): string | undefined {
  let tokens = statement.tokens;
  if (isKeyword(tokens[0], 'EXPLAIN')) {
    tokens = tokens.slice(1);
    if (isKeyword(tokens[0], 'QUERY') && isKeyword(tokens[1], 'PLAN')) tokens = tokens.slice(2);
  }
  const first = word(tokens[0]);
  if (first === 'attach' || first === 'detach') {
    return `${first.toUpperCase()} is not allowed: a session reaches only its own database`;
  }
  if (first === 'vacuum' && tokens.some((token) => isKeyword(token, 'INTO'))) {
    return 'VACUUM INTO is not allowed: it writes a file';
  }
  if (first === 'pragma') return pragmaRefusal(tokens);
  return undefined;
}
