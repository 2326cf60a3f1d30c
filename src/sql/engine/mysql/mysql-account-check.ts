import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { currentOwner } from '../../../core/host/owner.js';
import { objectName } from '../object-name.js';
import { SqlPrivilegeError } from '../sql-privilege-error.js';
import type { MysqlBackend } from './mysql-backend.js';
import { mysqlName, mysqlString } from './mysql-schema.js';
import { grantPattern, SESSION_PRIVILEGES, sessionGrant } from './mysql-session-grant.js';

/**
 * Server errors that mean "this account may not": ER_DBACCESS_DENIED_ERROR,
 * ER_ACCESS_DENIED_ERROR, ER_TABLEACCESS_DENIED_ERROR, ER_COLUMNACCESS_DENIED_ERROR,
 * ER_KILL_DENIED_ERROR, ER_SPECIFIC_ACCESS_DENIED_ERROR, ER_PROCACCESS_DENIED_ERROR,
 * ER_CANT_CREATE_USER_WITH_GRANT.
 */
const DENIED = new Set([1044, 1045, 1142, 1143, 1095, 1227, 1370, 1410]);

/** Whether a step was allowed; errors other than a refusal are thrown. */
async function allowed(step: () => Promise<unknown>): Promise<boolean> {
  try {
    await step();
    return true;
  } catch (error) {
    if (DENIED.has((error as { errno?: number }).errno ?? 0)) return false;
    throw error;
  }
}

/** The privilege that lets an account kill another account's queries, by server. */
function killPrivilege(backend: MysqlBackend): string {
  if (backend.flavor === 'mysql') return 'CONNECTION_ADMIN';
  const [major = 0, minor = 0, patch = 0] = backend.version.split(/[.-]/).map(Number);
  const since = major * 10_000 + minor * 100 + patch >= 100_502;
  return since ? 'CONNECTION ADMIN' : 'SUPER';
}

/** The statement that gives `account` everything the engine needs (one GRANT on every database). */
export function mysqlAccountFix(backend: MysqlBackend, account: string): string {
  return `GRANT ${SESSION_PRIVILEGES}, CREATE USER, ${killPrivilege(backend)} ON *.* TO ${account} WITH GRANT OPTION`;
}

/**
 * Checks that the account of a `--db-url` can do what the MySQL engine does on a shared server,
 * by doing it once on throw-away objects named after this process (`ic_<owner>_p…`, reaped like
 * session copies if the process dies meanwhile): drop and create a database (templates and session
 * copies), create an account (one per session), grant it the session privileges on its database
 * (GRANT OPTION and those privileges), and kill its queries (the time limit: `CONNECTION ADMIN`,
 * `CONNECTION_ADMIN` on MySQL, `SUPER` before MariaDB 10.5.2). Throws {@link SqlPrivilegeError}
 * naming what was refused and the GRANT that gives it all; what could not be tried because an
 * earlier step was refused is covered by the same GRANT.
 */
export async function checkMysqlAccount(backend: MysqlBackend): Promise<void> {
  const { pool, endpoint } = backend;
  const [rows] = await pool.query<mysql.RowDataPacket[]>('SELECT CURRENT_USER() AS account');
  const current = String(rows[0]?.account ?? '');
  const at = current.lastIndexOf('@');
  const account = `${mysqlString(current.slice(0, at))}@${mysqlString(current.slice(at + 1))}`;
  const tag = `p${randomBytes(3).toString('hex')}`;
  const database = objectName(['ic', currentOwner(), tag], 64);
  const user = objectName(['ic', currentOwner(), tag], 32);
  const probe = `${mysqlString(user)}@${mysqlString(endpoint.socketPath ? 'localhost' : '%')}`;
  const password = randomBytes(18).toString('base64url');
  const missing: string[] = [];
  let madeDatabase = false;
  let madeUser = false;
  try {
    if (!(await allowed(() => pool.query(`DROP DATABASE IF EXISTS ${mysqlName(database)}`))))
      missing.push('DROP');
    madeDatabase = await allowed(() => pool.query(`CREATE DATABASE ${mysqlName(database)}`));
    if (!madeDatabase) missing.push('CREATE');
    madeUser = await allowed(() => pool.query(`CREATE USER ${probe} IDENTIFIED BY ${mysqlString(password)}`));
    if (!madeUser) missing.push('CREATE USER');
    else if (await allowed(() => pool.query(sessionGrant(database, probe)))) {
      if (!(await canKill(backend, user, password))) missing.push(killPrivilege(backend));
    } else missing.push(...(await ungrantable(backend, database, probe)));
  } finally {
    if (madeUser) await pool.query(`DROP USER IF EXISTS ${probe}`).catch(() => {});
    if (madeDatabase) await pool.query(`DROP DATABASE IF EXISTS ${mysqlName(database)}`).catch(() => {});
  }
  if (missing.length > 0)
    throw new SqlPrivilegeError(account, missing, mysqlAccountFix(backend, account), 'mysql');
}

/**
 * The session privileges the account may not grant, one by one: all of them when it lacks GRANT
 * OPTION (then named so), else those it does not hold itself.
 */
async function ungrantable(backend: MysqlBackend, database: string, probe: string): Promise<string[]> {
  const refused: string[] = [];
  for (const privilege of SESSION_PRIVILEGES.split(', ')) {
    const grant = `GRANT ${privilege} ON ${grantPattern(database)}.* TO ${probe}`;
    if (!(await allowed(() => backend.pool.query(grant)))) refused.push(privilege);
  }
  return refused.length === SESSION_PRIVILEGES.split(', ').length ? ['GRANT OPTION'] : refused;
}

/** Whether the account may `KILL QUERY` a connection of another account (the probe account's). */
async function canKill(backend: MysqlBackend, user: string, password: string): Promise<boolean> {
  let connection: mysql.Connection;
  try {
    connection = await mysql.createConnection({
      ...backend.endpoint,
      user,
      password,
      connectTimeout: 10_000,
    });
  } catch {
    // Not a matter of the administrator's privileges: the sessions will say what is wrong.
    return true;
  }
  try {
    connection.on('error', () => {});
    return await allowed(() => backend.pool.query(`KILL QUERY ${Number(connection.threadId)}`));
  } finally {
    await connection.end().catch(() => {});
  }
}
