/**
 * The self-started MariaDB server: what it refuses to do (network, files), whom it runs as, where it
 * lives, its cached data directory, and what `intercode doctor` reports about the server engines.
 */
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConnection, type RowDataPacket } from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { checkSqlEngines } from '../../../src/sql/server/check-sql-engines.js';
import { MariadbServer } from '../../../src/sql/server/mariadb-server.js';
import { mariadbBinaries } from '../../../src/sql/server/server-binaries.js';
import { serviceAccount } from '../../../src/sql/server/service-account.js';
import { temporaryDir } from '../../envs/sql/sql-fixtures.js';
import { liveInGroup } from '../engine/server-engine-suite.js';

function installed(): boolean {
  try {
    mariadbBinaries();
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

describe('mariadbBinaries', () => {
  it('names the package to install when the server is missing', () => {
    process.env.INTERCODE_MARIADBD = '/nonexistent/mariadbd';
    try {
      expect(() => mariadbBinaries()).toThrow(
        expect.objectContaining({
          code: 'SQL_ENGINE_UNAVAILABLE',
          message: expect.stringContaining('apt-get install -y --no-install-recommends mariadb-server'),
        }),
      );
    } finally {
      delete process.env.INTERCODE_MARIADBD;
    }
  });
});

describe.skipIf(!installed())('MariadbServer', () => {
  it('serves only its Unix socket, reads and writes no files for SQL, and stops without a trace', async () => {
    const cache = temporaryDir('mariadb-cache');
    try {
      const server = await MariadbServer.start({ cacheDir: cache.dir });
      const again = await MariadbServer.start({ cacheDir: cache.dir });
      try {
        console.log(
          `MariaDB ${server.version}: start ${server.startMs.toFixed(0)} ms (template built), then ${again.startMs.toFixed(0)} ms (cached)`,
        );
        expect(existsSync(join(cache.dir, 'sql', 'servers'))).toBe(true);
        expect(server.socketPath).not.toBe(again.socketPath);
        const connection = await createConnection(server.adminConnection());
        const [rows] = await connection.query<RowDataPacket[]>(
          'SELECT @@skip_networking AS skip, @@local_infile AS local_infile, @@secure_file_priv AS files, @@lower_case_table_names AS lower, @@collation_server AS collation',
        );
        await connection.end();
        expect(rows[0]).toMatchObject({
          skip: 1,
          local_infile: 0,
          files: `${join(server.dir, 'files')}/`,
          lower: 1,
          collation: 'utf8mb4_general_ci',
        });
        const account = serviceAccount(['mysql', 'nobody']);
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

  // A starting MariaDB server deletes the `#sql*` files in its temporary folder: the initialisation
  // must not do that to /tmp (another initialisation's temporary tables, or another server's).
  it('initialises its data directory without touching the shared temporary folder', async () => {
    const cache = temporaryDir('mariadb-cache');
    const other = join('/tmp', `#sql-temptable-intercode-${randomBytes(4).toString('hex')}.MAI`);
    writeFileSync(other, "another server's temporary table");
    // /tmp is sticky: the file belongs to the account the servers run under, as theirs would.
    const account = serviceAccount(['mysql', 'nobody']);
    if (account) chownSync(other, account.uid, account.gid);
    try {
      const server = await MariadbServer.start({ cacheDir: cache.dir });
      await server.stop();
      expect(existsSync(other)).toBe(true);
    } finally {
      rmSync(other, { force: true });
      cache.remove();
      rmSync(cache.dir, { recursive: true, force: true });
    }
  });
});

describe('checkSqlEngines', () => {
  it('reports each server engine, starting the servers on request', async () => {
    const items = await checkSqlEngines({ start: true });
    const names = items.map((item) => item.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'setpriv (server launcher)',
        'mysql engine (MariaDB server)',
        'postgres engine (PostgreSQL server)',
      ]),
    );
    for (const item of items) {
      if (!item.ok) expect(item.fix).toMatch(/apt-get install/);
      if (item.ok && item.name.includes('engine')) expect(item.detail).toContain('started and stopped');
    }
    console.log(items.map((item) => `${item.ok ? 'ok  ' : 'MISS'} ${item.name}: ${item.detail}`).join('\n'));
  });
});
