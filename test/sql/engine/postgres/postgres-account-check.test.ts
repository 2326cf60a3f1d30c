/**
 * `--db-url` on PostgreSQL with roles that lack what the engine needs: the engine refuses to start
 * with one line naming the missing role attributes and the ALTER ROLE that gives them, before any
 * dump is loaded and without making anything on the server; a role given exactly that runs an
 * episode (copies, per-session roles, a time limit that cancels the query). Runs on a private
 * PostgreSQL server started here; skipped when PostgreSQL is not installed.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMysqlDump } from '../../../../src/sql/dump/parse-mysql-dump.js';
import { PostgresEngine } from '../../../../src/sql/engine/postgres/postgres-engine.js';
import { SqlPrivilegeError } from '../../../../src/sql/engine/sql-privilege-error.js';
import { PostgresServer } from '../../../../src/sql/server/postgres-server.js';
import { postgresBinaries } from '../../../../src/sql/server/server-binaries.js';

function installed(): boolean {
  try {
    postgresBinaries();
    return true;
  } catch {
    return false;
  }
}

const DUMP = parseMysqlDump(`
CREATE DATABASE \`shop\`;
USE \`shop\`;
CREATE TABLE \`item\` (\`id\` int NOT NULL AUTO_INCREMENT, \`name\` varchar(20), PRIMARY KEY (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO \`item\` VALUES (1,'pen'),(2,'ink');
`);

describe.skipIf(!installed())('PostgresEngine on a URL checks the account first', () => {
  let server: PostgresServer;
  let admin: pg.Client;

  /** A new login role with these attributes; its `--db-url`. */
  async function role(name: string, attributes = ''): Promise<string> {
    await admin.query(`CREATE ROLE ${name} LOGIN ${attributes}`);
    return `postgres://${name}@localhost/postgres?host=${encodeURIComponent(server.socketDir)}`;
  }

  /** What an engine made on the server: intercode's databases and roles. */
  async function leftovers(): Promise<string[]> {
    const { rows } = await admin.query<{ name: string }>(
      "SELECT datname AS name FROM pg_database WHERE datname LIKE 'ic\\_%' UNION ALL SELECT rolname FROM pg_roles WHERE rolname LIKE 'ic\\_%'",
    );
    return rows.map((row) => row.name);
  }

  async function refusal(url: string): Promise<SqlPrivilegeError> {
    const error = await PostgresEngine.start({ url }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(SqlPrivilegeError);
    return error as SqlPrivilegeError;
  }

  beforeAll(async () => {
    server = await PostgresServer.start();
    admin = new pg.Client(server.adminConnection());
    await admin.connect();
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  it('names what a plain login role lacks, on one line, with the ALTER ROLE that gives it', async () => {
    const error = await refusal(await role('reader'));
    expect(error.code).toBe('SQL_ACCOUNT_PRIVILEGES');
    expect(error.missing).toEqual(['CREATEDB', 'CREATEROLE']);
    expect(error.account).toBe('"reader"');
    expect(error.fix).toBe('ALTER ROLE "reader" CREATEDB CREATEROLE');
    expect(error.message).toBe(
      '--db-url: the account "reader" lacks CREATEDB, CREATEROLE, which the postgres engine needs to make a database and an account per session; as an administrator, run: ALTER ROLE "reader" CREATEDB CREATEROLE',
    );
    expect(await leftovers()).toEqual([]);
  });

  it('names the one attribute a role lacks', async () => {
    expect((await refusal(await role('builder', 'CREATEDB'))).missing).toEqual(['CREATEROLE']);
    expect((await refusal(await role('keeper', 'CREATEROLE'))).missing).toEqual(['CREATEDB']);
    expect(await leftovers()).toEqual([]);
  });

  it('runs an episode with a role given exactly the ALTER ROLE the error names', async () => {
    const url = await role('operator');
    const { fix } = await refusal(url);
    await admin.query(fix);
    const engine = await PostgresEngine.start({ url });
    try {
      await engine.prepare(DUMP);
      const session = await engine.open('shop');
      const limits = { timeoutMs: 10_000, maxRows: 100 };
      expect(await session.query("INSERT INTO item (name) VALUES ('cap')", limits)).toMatchObject({
        kind: 'ok',
        affectedRows: 1,
      });
      expect(await session.query('SELECT count(*) FROM item', limits)).toMatchObject({ rows: [[3n]] });
      const slow = await session.query('SELECT pg_sleep(20)', { timeoutMs: 300, maxRows: 1 });
      expect(slow).toMatchObject({ kind: 'error', code: 'TIMEOUT', timedOut: true });
      expect(slow.durationMs).toBeLessThan(5_000);
      await session.reset();
      expect(await session.query('SELECT count(*) FROM item', limits)).toMatchObject({ rows: [[2n]] });
      await session.close();
    } finally {
      await engine.close();
    }
    // The engine dropped its copies and roles; the template and the role owning its tables stay.
    expect((await leftovers()).sort()).toEqual(['ic_agent', expect.stringMatching(/^ic_t/)]);
  }, 60_000);
});
