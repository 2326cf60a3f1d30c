import { SqlPrivilegeError } from '../sql-privilege-error.js';
import type { PostgresBackend } from './postgres-backend.js';
import { pgName } from './postgres-schema.js';

/**
 * Checks that the account of a `--db-url` can do what the PostgreSQL engine does on a shared
 * server: create databases (templates and one copy per session: `CREATEDB`) and roles (the
 * `ic_agent` role that owns the tables, one login role per session: `CREATEROLE`). A superuser
 * can. Role attributes are the account's own (never inherited), so reading them is exact. Throws
 * {@link SqlPrivilegeError} naming the missing attributes and the `ALTER ROLE` that gives them.
 */
export async function checkPostgresAccount(backend: PostgresBackend): Promise<void> {
  const { rows } = await backend.pool.query<{
    name: string;
    superuser: boolean;
    createdb: boolean;
    createrole: boolean;
  }>(
    'SELECT rolname AS name, rolsuper AS superuser, rolcreatedb AS createdb, rolcreaterole AS createrole FROM pg_roles WHERE rolname = current_user',
  );
  const role = rows[0];
  if (!role || role.superuser) return;
  const missing = [...(role.createdb ? [] : ['CREATEDB']), ...(role.createrole ? [] : ['CREATEROLE'])];
  if (missing.length === 0) return;
  const account = pgName(role.name);
  throw new SqlPrivilegeError(account, missing, `ALTER ROLE ${account} CREATEDB CREATEROLE`, 'postgres');
}
