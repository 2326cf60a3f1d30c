import { UsageError } from '../../../core/errors.js';

/** Where and as whom to connect to a PostgreSQL server (pg's connection options). */
export interface PostgresEndpoint {
  /** Host name, or the folder of the Unix socket. */
  readonly host: string;
  readonly port?: number;
  readonly user: string;
  readonly password?: string;
  /** The database the administrator connects to (default `postgres`). */
  readonly database: string;
}

/**
 * Reads `postgres://user:password@host:port/database` (also `postgresql://`; `?host=/run/postgresql`
 * for a Unix socket). The account must be a superuser, or have CREATEDB and CREATEROLE.
 */
export function parsePostgresUrl(text: string): PostgresEndpoint {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--db-url: not a URL: ${text}`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new UsageError(
      `--db-url: the postgres engine takes postgres://user:password@host:port/database, not ${url.protocol}//`,
    );
  }
  const host = url.searchParams.get('host') ?? url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new UsageError(`--db-url: no host in ${text}`);
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  return {
    host,
    ...(url.port ? { port: Number(url.port) } : {}),
    user: decodeURIComponent(url.username) || 'postgres',
    ...(password !== undefined ? { password } : {}),
    database: decodeURIComponent(url.pathname.slice(1)) || 'postgres',
  };
}

/** True when the endpoint is on this machine (then leftovers of dead intercode processes may be reaped). */
export function isLocalPostgres(endpoint: PostgresEndpoint): boolean {
  return endpoint.host.startsWith('/') || ['localhost', '127.0.0.1', '::1'].includes(endpoint.host);
}
