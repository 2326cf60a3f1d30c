import { UsageError } from '../../../core/errors.js';
import { MysqlEngine } from '../engine/mysql/mysql-engine.js';
import { PostgresEngine } from '../engine/postgres/postgres-engine.js';
import type { SqlEngine } from '../engine/sql-engine.js';

export { checkSqlEngines, type SqlEngineCheckOptions } from './check-sql-engines.js';
export { MariadbServer, type MariadbServerOptions } from './mariadb-server.js';
export { PostgresServer, type PostgresServerOptions } from './postgres-server.js';
export { reapStaleServers, serverBaseDir } from './server-dirs.js';

/**
 * The server engines by name: `mysql` (MariaDB or MySQL through mysql2) and `postgres` (through
 * pg), on the server at `dbUrl`, or on a server the engine starts for itself (and stops at
 * `close`). The server starts (or is reached) here, so that a missing server is reported before
 * any dump is loaded.
 */
export async function createServerSqlEngine(name: 'mysql' | 'postgres', dbUrl?: string): Promise<SqlEngine> {
  switch (name) {
    case 'mysql':
      return MysqlEngine.start(dbUrl ? { url: dbUrl } : {});
    case 'postgres':
      return PostgresEngine.start(dbUrl ? { url: dbUrl } : {});
    default:
      throw new UsageError(`unknown server engine "${String(name)}" (known: mysql, postgres)`);
  }
}
