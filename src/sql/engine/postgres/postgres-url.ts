import { UsageError } from '../../../core/errors.js';
import { isLocalHost, parseDbUrl, urlHost } from '../db-url.js';

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
 * for a Unix socket). What the account needs on the server is checked when the engine starts
 * (`postgres-account-check.ts`).
 */
export function parsePostgresUrl(text: string): PostgresEndpoint {
  const url = parseDbUrl(
    text,
    'postgres',
    ['postgres:', 'postgresql:'],
    'postgres://user:password@host:port/database',
  );
  const host = url.searchParams.get('host') ?? urlHost(url);
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
  return endpoint.host.startsWith('/') || isLocalHost(endpoint.host);
}
