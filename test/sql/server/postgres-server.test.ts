/**
 * The self-started PostgreSQL server: no TCP, whom it runs as (never root), its cached data
 * directory, and that it stops without a trace.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresServer } from '../../../src/sql/server/postgres-server.js';
import { postgresBinaries } from '../../../src/sql/server/server-binaries.js';
import { serviceAccount } from '../../../src/sql/server/service-account.js';
import { temporaryDir } from '../../envs/sql/sql-fixtures.js';
import { liveInGroup } from '../engine/server-engine-suite.js';

function installed(): boolean {
  try {
    postgresBinaries();
    return true;
  } catch {
    return false;
  }
}

function uidOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('Uid:'));
  return Number(line?.split(/\s+/)[1]);
}

describe('postgresBinaries', () => {
  it('names the package to install when the server is missing', () => {
    process.env.INTERCODE_PG_BIN = '/nonexistent/bin';
    try {
      expect(() => postgresBinaries()).toThrow(
        expect.objectContaining({
          code: 'SQL_ENGINE_UNAVAILABLE',
          message: expect.stringContaining('apt-get install -y postgresql'),
        }),
      );
    } finally {
      delete process.env.INTERCODE_PG_BIN;
    }
  });
});

describe.skipIf(!installed())('PostgresServer', () => {
  it('serves only its Unix socket, runs as a service account, and stops without a trace', async () => {
    const cache = temporaryDir('postgres-cache');
    try {
      const server = await PostgresServer.start({ cacheDir: cache.dir });
      const again = await PostgresServer.start({ cacheDir: cache.dir });
      try {
        console.log(
          `PostgreSQL ${server.version}: start ${server.startMs.toFixed(0)} ms (template built), then ${again.startMs.toFixed(0)} ms (cached)`,
        );
        expect(existsSync(join(cache.dir, 'sql', 'servers'))).toBe(true);
        const client = new pg.Client(server.adminConnection());
        await client.connect();
        const settings = await client.query(
          "SELECT current_setting('listen_addresses') AS listen, current_setting('fsync') AS fsync, current_setting('server_encoding') AS encoding",
        );
        await client.end();
        expect(settings.rows[0]).toEqual({ listen: '', fsync: 'off', encoding: 'UTF8' });
        expect(uidOf(server.pid)).not.toBe(0);
        const account = serviceAccount(['postgres', 'nobody']);
        if (account) expect(uidOf(server.pid)).toBe(account.uid);
      } finally {
        await server.stop();
        await again.stop();
      }
      for (const stopped of [server, again]) {
        expect(liveInGroup(stopped.pid)).toEqual([]);
        expect(existsSync(stopped.dir)).toBe(false);
      }
    } finally {
      cache.remove();
      rmSync(cache.dir, { recursive: true, force: true });
    }
  });
});
