/**
 * Hostile class (issue 11, SQL): the data of the servers intercode starts lived on the host's
 * /dev/shm with no size cap, so a few INSERTs of an agent filled host memory (1.4 GB in 8 s). Each
 * server now keeps its data and temporary files in a store of a fixed size (a tmpfs of its own in a
 * private mount namespace): a session that writes past it gets an SQL error (data), the server
 * lives on, the store never holds more than its cap, and the next episode starts pristine.
 */
import { statfsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMysqlDump } from '../../../src/sql/dump/parse-mysql-dump.js';
import { MysqlEngine } from '../../../src/sql/engine/mysql/mysql-engine.js';
import { PostgresEngine } from '../../../src/sql/engine/postgres/postgres-engine.js';
import type { ErrorOutcome, QueryOutcome, SqlEngine } from '../../../src/sql/engine/sql-engine.js';
import type { ManagedServer } from '../../../src/sql/server/managed-server.js';
import { mariadbBinaries, postgresBinaries } from '../../../src/sql/server/server-binaries.js';

const DUMP = parseMysqlDump(`CREATE DATABASE \`shop\`;
USE \`shop\`;
CREATE TABLE \`item\` (\`id\` int NOT NULL AUTO_INCREMENT, \`name\` char(255), PRIMARY KEY (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO \`item\` VALUES (1,'pen'),(2,'ink'),(3,'cap'),(4,'nib'),(5,'pad');
`);

const CAP = 160 * 2 ** 20;
/** What the agent writes at most before the test gives up: well past the cap. */
const BOUND = 3 * CAP;
/** Bytes a row of `item` takes at least (a CHAR(255) stored padded). */
const ROW_BYTES = 255;
const OPTIONS = { timeoutMs: 60_000, maxRows: 10 };

function installed(find: () => unknown): boolean {
  try {
    find();
    return true;
  } catch {
    return false;
  }
}

const CASES = [
  {
    name: 'MariaDB',
    available: installed(mariadbBinaries),
    start: () => MysqlEngine.start({ serverOptions: { dataSizeBytes: CAP } }),
    /** The mount that holds the databases, in the server's folder. */
    databases: 'store',
  },
  {
    name: 'PostgreSQL',
    available: installed(postgresBinaries),
    start: () => PostgresEngine.start({ serverOptions: { dataSizeBytes: CAP } }),
    databases: 'store/data/base',
  },
] as const;

const engines: SqlEngine[] = [];
afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.close()));
});

/** Bytes used on the file system that holds `path` inside the server's mount namespace. */
function usedBytes(server: ManagedServer, path: string): { used: number; size: number } {
  const stat = statfsSync(join(`/proc/${server.pid}/root`, path));
  return { used: (stat.blocks - stat.bfree) * stat.bsize, size: stat.blocks * stat.bsize };
}

for (const c of CASES) {
  describe.skipIf(!c.available)(`a ${c.name} server's data stays within its cap`, () => {
    it('a session that writes past the cap gets an SQL error; the server lives on, pristine after reset', async () => {
      const engine = await c.start();
      engines.push(engine);
      await engine.prepare(DUMP);
      const server = (await (engine as MysqlEngine | PostgresEngine).server()) as ManagedServer;
      const session = await engine.open('shop');
      const run = (sql: string): Promise<QueryOutcome> => session.query(sql, OPTIONS);
      // The dump's own table, doubled until the store is full: PostgreSQL keeps rolled-back rows
      // in the table's files, MariaDB in its tablespace.
      let rows = 5;
      let failure: ErrorOutcome | undefined;
      while (rows * ROW_BYTES < BOUND) {
        const outcome = await run('INSERT INTO item (name) SELECT name FROM item');
        if (outcome.kind === 'error') {
          failure = outcome;
          break;
        }
        rows *= 2;
      }
      expect(failure, `${rows} rows (${Math.round((rows * ROW_BYTES) / 2 ** 20)} MiB) written`).toBeDefined();
      expect(failure?.message).toMatch(/is full|no space left/i);
      expect(server.alive).toBe(true);
      const store = usedBytes(server, join(server.dir, c.databases));
      expect(store.size).toBeLessThanOrEqual(CAP);
      expect(store.used).toBeLessThanOrEqual(CAP);
      // The next episode starts pristine and can write; a new session gets a copy of its own.
      await session.reset();
      const count = await run('SELECT count(*) FROM item');
      expect(count.kind === 'rows' && Number(count.rows[0]?.[0])).toBe(5);
      expect((await run("INSERT INTO item (name) VALUES ('new')")).kind).toBe('ok');
      const other = await engine.open('shop');
      const again = await other.query('INSERT INTO item (name) SELECT name FROM item', OPTIONS);
      expect(again.kind).toBe('ok');
      await other.close();
      await session.close();
      expect(server.alive).toBe(true);
    }, 180_000);
  });
}
