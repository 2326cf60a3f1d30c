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

const CLIENT_STREAM =
  'COPY … FROM STDIN is not available: it waits for rows from the client, which sends none (use INSERT)';

/** Statements refused by their first word: they would end or split the episode's transaction. */
const TRANSACTION_WORDS = new Set([
  'BEGIN',
  'START',
  'COMMIT',
  'END',
  'ROLLBACK',
  'ABORT',
  'SAVEPOINT',
  'RELEASE',
]);

function word(token: SqlToken | undefined): string {
  return token?.kind === 'word' ? token.value.toUpperCase() : '';
}

/**
 * Checks one PostgreSQL statement: whether it would break the protocol of the session (the only
 * refusals: transaction control, `BEGIN`, `COMMIT`, `ROLLBACK`, `SAVEPOINT`, `PREPARE TRANSACTION`,
 * …, which the reset's rollback and the per-statement savepoints depend on; `COPY … FROM STDIN`,
 * which would wait for the client until the time limit), whether a cursor can run it, and the
 * target of a MySQL-style `USE`.
 *
 * It refuses nothing for safety: words can be built at run time (`EXECUTE 'SELECT pg_read' ||
 * '_file(…)'` in a `DO` block), so the barrier is the session's role, which the server checks
 * whatever the text: not a superuser, no CREATEDB, CREATEROLE, REPLICATION or BYPASSRLS, no
 * `pg_read_server_files`, `pg_write_server_files`, `pg_execute_server_program`, `pg_signal_backend`
 * or `pg_monitor`, CONNECT on its own copy only and no CREATE on it (so no extensions or
 * publications). Files and programs (`COPY … FROM/TO '<file>'`, `COPY … PROGRAM`, `pg_read_file`,
 * `lo_import`, `pg_ls_dir`), other databases, roles, server settings (`ALTER SYSTEM`,
 * `set_config('role', …)`), other sessions (`pg_terminate_backend`), `LOAD`, `CHECKPOINT`, foreign
 * servers and subscriptions all fail there with `42501` (insufficient privilege) or the like: see
 * `docs/architecture/sql-engines.md` and `test/sql/engine/postgres/postgres-privileges.test.ts`.
 */
export function checkPostgresStatement(statement: SqlStatement): PostgresStatementCheck {
  const tokens = statement.tokens;
  const words = tokens.map(word);
  const first = words[0] ?? '';
  if (TRANSACTION_WORDS.has(first)) return { refusal: TRANSACTION_CONTROL, cursor: false };
  if (first === 'PREPARE' && words[1] === 'TRANSACTION')
    return { refusal: TRANSACTION_CONTROL, cursor: false };
  if (first === 'COPY' && words.includes('STDIN')) return { refusal: CLIENT_STREAM, cursor: false };
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
