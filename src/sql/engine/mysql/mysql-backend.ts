import type { Pool, PoolConnection } from 'mysql2/promise';
import type { MariadbServer } from '../../server/mariadb-server.js';
import type { ServerBackend } from '../server-engine.js';
import type { MysqlFlavor } from './mysql-schema.js';
import type { MysqlEndpoint } from './mysql-url.js';

/** The MySQL engine's connection to its server, once started or reached. */
export interface MysqlBackend extends ServerBackend<MysqlEndpoint> {
  readonly pool: Pool;
  readonly flavor: MysqlFlavor;
  /** `SELECT VERSION()`, e.g. `10.11.19-MariaDB-0+deb12u1`. */
  readonly version: string;
  readonly ownServer?: MariadbServer;
  readonly server?: MariadbServer;
}

/**
 * An administrator connection of the pool with the settings for loading and rebuilding copies:
 * foreign-key and unique checks off, the dump's `sql_mode`, UTC, autocommit. The caller releases it.
 */
export async function mysqlAdminConnection(backend: MysqlBackend): Promise<PoolConnection> {
  const connection = await backend.pool.getConnection();
  await connection.query(
    "SET SESSION foreign_key_checks = 0, unique_checks = 0, sql_mode = 'NO_AUTO_VALUE_ON_ZERO', time_zone = '+00:00', autocommit = 1",
  );
  if (backend.flavor === 'mysql') await connection.query('SET SESSION information_schema_stats_expiry = 0');
  return connection;
}
