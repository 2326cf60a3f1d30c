import pg from 'pg';
import type { PostgresServer } from '../../server/postgres-server.js';
import type { ServerBackend } from '../server-engine.js';
import type { PostgresTextMode } from './postgres-schema.js';
import type { PostgresEndpoint } from './postgres-url.js';

/** The PostgreSQL engine's connection to its server, once started or reached. */
export interface PostgresBackend extends ServerBackend<PostgresEndpoint> {
  readonly pool: pg.Pool;
  /** `server_version_num`, e.g. 150018. */
  readonly versionNum: number;
  readonly superuser: boolean;
  readonly textMode: PostgresTextMode;
  readonly ownServer?: PostgresServer;
  readonly server?: PostgresServer;
}

/** The role that owns every template's tables; session roles are its members (NOLOGIN). */
export const AGENT_ROLE = 'ic_agent';

/** ` WITH (FORCE)` where the server has it (13+): `DROP DATABASE` ends the sessions still on it. */
export function dropForce(backend: PostgresBackend): string {
  return backend.versionNum >= 130000 ? ' WITH (FORCE)' : '';
}

/** A client of the administrator account on one database (the caller ends it). */
export async function postgresAdminClient(backend: PostgresBackend, database: string): Promise<pg.Client> {
  const client = new pg.Client({ ...backend.endpoint, database, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  await client.connect();
  return client;
}
