import { UsageError } from '../../../core/errors.js';
import { isLocalHost, parseDbUrl, urlHost } from '../db-url.js';

/** Where and as whom to connect to a MySQL or MariaDB server. */
export interface MysqlEndpoint {
  readonly host?: string;
  readonly port?: number;
  readonly socketPath?: string;
  readonly user: string;
  readonly password?: string;
}

/**
 * Reads `mysql://user:password@host:port` (also `mariadb://`; `?socket=/path/to/mysqld.sock` for a
 * Unix socket). What the account needs on the server is checked when the engine starts
 * (`mysql-account-check.ts`).
 */
export function parseMysqlUrl(text: string): MysqlEndpoint {
  const url = parseDbUrl(text, 'mysql', ['mysql:', 'mariadb:'], 'mysql://user:password@host:port');
  const socketPath = url.searchParams.get('socket') ?? undefined;
  const user = decodeURIComponent(url.username) || 'root';
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  if (socketPath) return { socketPath, user, ...(password !== undefined ? { password } : {}) };
  if (!url.hostname) throw new UsageError(`--db-url: no host in ${text}`);
  return {
    host: urlHost(url),
    port: url.port ? Number(url.port) : 3306,
    user,
    ...(password !== undefined ? { password } : {}),
  };
}

/** True when the endpoint is on this machine (then leftovers of dead intercode processes may be reaped). */
export function isLocalEndpoint(endpoint: { host?: string; socketPath?: string }): boolean {
  return Boolean(endpoint.socketPath) || isLocalHost(endpoint.host);
}
