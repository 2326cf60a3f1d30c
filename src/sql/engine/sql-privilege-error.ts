import { SqlEngineError } from './sql-engine-error.js';

/**
 * The account of a `--db-url` lacks what the engine needs on the server (code
 * `SQL_ACCOUNT_PRIVILEGES`), found when the engine starts, before any dump is loaded. The message
 * is one line: the account, what it lacks, and the statement that grants it.
 */
export class SqlPrivilegeError extends SqlEngineError {
  constructor(
    /** The account as the server names it (`'user'@'host'`, `"user"`). */
    readonly account: string,
    /** What the account lacks, in the server's words (`CREATE USER`, `CREATEROLE`). */
    readonly missing: readonly string[],
    /** The statement an administrator runs to give the account what the engine needs. */
    readonly fix: string,
    /** `mysql`, `postgres`. */
    engine: string,
  ) {
    super(
      'SQL_ACCOUNT_PRIVILEGES',
      `--db-url: the account ${account} lacks ${missing.join(', ')}, which the ${engine} engine needs to make a database and an account per session; as an administrator, run: ${fix}`,
    );
  }
}
