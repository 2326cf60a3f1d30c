import { mysqlName } from './mysql-schema.js';

/** Privileges of a session's account, on its own database only. */
export const SESSION_PRIVILEGES =
  'SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, REFERENCES, CREATE TEMPORARY TABLES, CREATE VIEW, SHOW VIEW';

/** `db_name` as a GRANT pattern (`_` and `%` are wildcards there). */
export function grantPattern(database: string): string {
  return mysqlName(database.replace(/([_%\\])/g, '\\$1'));
}

/** The `GRANT` that gives a session's account (`'user'@'host'`) its rights on its own copy only. */
export function sessionGrant(database: string, account: string): string {
  return `GRANT ${SESSION_PRIVILEGES} ON ${grantPattern(database)}.* TO ${account}`;
}

/** Privileges of a copy's reader account (the reference connection's), on the copy only. */
export const READER_PRIVILEGES = 'SELECT, SHOW VIEW';

/** The `GRANT` that lets a copy's reader account (`'user'@'host'`) read that copy only. */
export function readerGrant(database: string, account: string): string {
  return `GRANT ${READER_PRIVILEGES} ON ${grantPattern(database)}.* TO ${account}`;
}
