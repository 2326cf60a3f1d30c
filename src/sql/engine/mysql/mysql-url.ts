import { UsageError } from '../../../core/errors.js';

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
 * Unix socket). The account must be able to create databases and users and to grant privileges on
 * them (and, on MySQL 8, to kill other accounts' queries: `CONNECTION_ADMIN`).
 */
export function parseMysqlUrl(text: string): MysqlEndpoint {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--db-url: not a URL: ${text}`);
  }
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
    throw new UsageError(
      `--db-url: the mysql engine takes mysql://user:password@host:port, not ${url.protocol}//`,
    );
  }
  const socketPath = url.searchParams.get('socket') ?? undefined;
  const user = decodeURIComponent(url.username) || 'root';
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  if (socketPath) return { socketPath, user, ...(password !== undefined ? { password } : {}) };
  if (!url.hostname) throw new UsageError(`--db-url: no host in ${text}`);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : 3306,
    user,
    ...(password !== undefined ? { password } : {}),
  };
}

/** True when the endpoint is on this machine (then leftovers of dead intercode processes may be reaped). */
export function isLocalEndpoint(endpoint: { host?: string; socketPath?: string }): boolean {
  if (endpoint.socketPath) return true;
  return ['localhost', '127.0.0.1', '::1'].includes(endpoint.host ?? '');
}
