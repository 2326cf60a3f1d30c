import type { SqlStatement } from '../../dump/split-statements.js';
import type { SqlToken } from '../../dump/sql-token.js';

/** The verdict on one PostgreSQL statement. */
export interface PostgresStatementCheck {
  /** Why the statement is refused (`FORBIDDEN_STATEMENT`), when it is. */
  readonly refusal?: string;
  /** `USE <name>` (not PostgreSQL): the database named; the session answers it itself. */
  readonly use?: string;
  /**
   * A query that a cursor can run (`SELECT`, `VALUES`, `TABLE`, `WITH … SELECT`, without
   * `INTO`): its rows are fetched up to the limit and counted on the server.
   */
  readonly cursor: boolean;
}

const TRANSACTION_CONTROL =
  'transaction control is not available: each episode runs in one transaction that reset rolls back, and every statement is atomic on its own (its changes stay visible until the reset)';
const PRIVILEGES = 'privilege and role changes are not allowed';
const OTHER_DATABASES = 'a session stays on its own database';
const SERVER = 'server administration is not allowed';

/** Statements refused by their first word. */
const REFUSED_FIRST_WORDS = new Map([
  ['BEGIN', TRANSACTION_CONTROL],
  ['START', TRANSACTION_CONTROL],
  ['COMMIT', TRANSACTION_CONTROL],
  ['END', TRANSACTION_CONTROL],
  ['ROLLBACK', TRANSACTION_CONTROL],
  ['ABORT', TRANSACTION_CONTROL],
  ['SAVEPOINT', TRANSACTION_CONTROL],
  ['RELEASE', TRANSACTION_CONTROL],
  ['VACUUM', `VACUUM is not available: ${TRANSACTION_CONTROL}`],
  ['GRANT', PRIVILEGES],
  ['REVOKE', PRIVILEGES],
  ['REASSIGN', PRIVILEGES],
  ['SECURITY', PRIVILEGES],
  [
    'COPY',
    'COPY is not allowed: it reads or writes files, programs or the client stream (use INSERT and SELECT)',
  ],
  ['CHECKPOINT', SERVER],
  ['LOAD', SERVER],
  ['IMPORT', SERVER],
]);

/** Objects that live outside the session's database, or load code into the server. */
const SERVER_OBJECTS = new Map([
  ['ROLE', PRIVILEGES],
  ['USER', PRIVILEGES],
  ['GROUP', PRIVILEGES],
  ['DATABASE', OTHER_DATABASES],
  ['TABLESPACE', OTHER_DATABASES],
  ['EXTENSION', SERVER],
  ['SERVER', SERVER],
  ['FOREIGN', SERVER],
  ['SUBSCRIPTION', SERVER],
  ['PUBLICATION', SERVER],
  ['EVENT', SERVER],
  ['LANGUAGE', SERVER],
  ['SYSTEM', SERVER],
  ['DEFAULT', PRIVILEGES],
]);

/**
 * Functions that reach files, programs, other sessions or server settings. Non-superusers may not
 * call most of them anyway; refusing them gives a clear message, including inside the strings of
 * `DO` blocks and function bodies.
 */
const REFUSED_FUNCTIONS = [
  'pg_read_file',
  'pg_read_binary_file',
  'pg_ls_\\w+',
  'pg_stat_file',
  'pg_file_\\w+',
  'lo_import',
  'lo_export',
  'dblink\\w*',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_signal_backend',
  'pg_reload_conf',
  'pg_rotate_logfile',
  'pg_promote',
  'pg_switch_wal',
  'pg_create_restore_point',
  'pg_backup_start',
  'pg_backup_stop',
  'pg_start_backup',
  'pg_stop_backup',
  'pg_logical_emit_message',
  'pg_create_\\w*replication_slot',
  'pg_drop_replication_slot',
  'pg_replication_origin_\\w+',
  'pg_current_logfile',
  'pg_import_system_collations',
  'set_config',
];
const FUNCTION_CALL = new RegExp(`\\b(${REFUSED_FUNCTIONS.join('|')})\\s*\\(`, 'i');
const FUNCTION_NAME = new RegExp(`^(${REFUSED_FUNCTIONS.join('|')})$`, 'i');

function word(token: SqlToken | undefined): string {
  return token?.kind === 'word' ? token.value.toUpperCase() : '';
}

function refused(reason: string): PostgresStatementCheck {
  return { refusal: reason, cursor: false };
}

/** The object word after CREATE/ALTER/DROP, skipping `OR REPLACE`, `IF [NOT] EXISTS`, `TRUSTED`, `PROCEDURAL`. */
function objectWord(words: readonly string[]): string {
  const skip = new Set(['OR', 'REPLACE', 'IF', 'NOT', 'EXISTS', 'TRUSTED', 'PROCEDURAL', 'UNLOGGED']);
  for (const candidate of words.slice(1, 6)) {
    if (!skip.has(candidate)) return candidate;
  }
  return '';
}

/**
 * Checks one PostgreSQL statement: why it is refused, whether a cursor can run it, and the target
 * of a MySQL-style `USE`. The session's role is the real barrier (not a superuser, no
 * `pg_read_server_files`/`pg_write_server_files`/`pg_execute_server_program`, CONNECT on its own
 * database only); these checks keep the episode's single transaction intact (no
 * `BEGIN`/`COMMIT`/`ROLLBACK`/`SAVEPOINT`/`VACUUM`), refuse file and program access (`COPY`,
 * `pg_read_file`, `lo_import`, …), role and privilege changes, other databases, server-level
 * objects and settings (`ALTER SYSTEM`, `set_config`), and give clear messages for all of them.
 */
export function checkPostgresStatement(statement: SqlStatement): PostgresStatementCheck {
  const tokens = statement.tokens;
  const words = tokens.map(word);
  const first = words[0] ?? '';
  for (const token of tokens) {
    if (token.kind === 'word' && FUNCTION_NAME.test(token.value)) {
      return refused(
        `${token.value.toLowerCase()}() is not allowed: it reaches beyond the session's database`,
      );
    }
    if (token.kind === 'string' && FUNCTION_CALL.test(token.value)) {
      const name = FUNCTION_CALL.exec(token.value)?.[1]?.toLowerCase();
      return refused(`${name}() is not allowed: it reaches beyond the session's database`);
    }
  }
  if (first === 'PREPARE' && words[1] === 'TRANSACTION') return refused(TRANSACTION_CONTROL);
  const byWord = REFUSED_FIRST_WORDS.get(first);
  if (byWord) return refused(byWord);
  if (first === 'CREATE' || first === 'ALTER' || first === 'DROP') {
    const object = objectWord(words);
    const reason = SERVER_OBJECTS.get(object);
    if (reason) return refused(`${first} ${object}: ${reason}`);
  }
  if (first === 'SET' || first === 'RESET') {
    const rest = words.slice(1);
    if (rest[0] === 'SESSION' && rest[1] === 'AUTHORIZATION') return refused(PRIVILEGES);
    const target = rest[0] === 'SESSION' || rest[0] === 'LOCAL' ? rest.slice(1) : rest;
    if (target[0] === 'ROLE') return refused(PRIVILEGES);
  }
  if (first === 'USE') {
    const target = tokens[1];
    const name =
      target && (target.kind === 'word' || target.kind === 'quoted-identifier') ? target.value : '';
    return { use: name, cursor: false };
  }
  const opensParen = tokens[0]?.kind === 'symbol' && tokens[0].value === '(';
  const query =
    opensParen || first === 'SELECT' || first === 'VALUES' || first === 'TABLE' || first === 'WITH';
  const writes = words.some((name) => ['INTO', 'INSERT', 'UPDATE', 'DELETE', 'MERGE'].includes(name));
  return { cursor: query && !writes };
}
