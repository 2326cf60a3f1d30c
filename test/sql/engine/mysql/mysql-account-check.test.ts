/**
 * `--db-url` on MariaDB with accounts that lack what the engine needs: the engine refuses to start
 * with one line naming what is missing and the GRANT that fixes it, before any dump is loaded and
 * without leaving anything on the server; an account given exactly that GRANT runs an episode
 * (copies, per-session accounts, a time limit that kills the query). Runs on a private MariaDB
 * server started here; skipped when MariaDB is not installed.
 */
import { type Connection, createConnection, type RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMysqlDump } from '../../../../src/sql/dump/parse-mysql-dump.js';
import { MysqlEngine } from '../../../../src/sql/engine/mysql/mysql-engine.js';
import { SqlPrivilegeError } from '../../../../src/sql/engine/sql-privilege-error.js';
import { MariadbServer } from '../../../../src/sql/server/mariadb-server.js';
import { mariadbBinaries } from '../../../../src/sql/server/server-binaries.js';

function installed(): boolean {
  try {
    mariadbBinaries();
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

describe.skipIf(!installed())('MysqlEngine on a URL checks the account first', () => {
  let server: MariadbServer;
  let root: Connection;

  /** A new account on the server, granted `privileges` on every database (none: nothing); its `--db-url`. */
  async function account(name: string, privileges?: string, withGrantOption = false): Promise<string> {
    await root.query(`CREATE USER '${name}'@'localhost' IDENTIFIED BY 'secret'`);
    const option = withGrantOption ? ' WITH GRANT OPTION' : '';
    if (privileges) await root.query(`GRANT ${privileges} ON *.* TO '${name}'@'localhost'${option}`);
    return `mysql://${name}:secret@localhost/?socket=${encodeURIComponent(server.socketPath)}`;
  }

  /** What an engine left on the server: intercode's databases and accounts. */
  async function leftovers(): Promise<string[]> {
    const [databases] = await root.query<RowDataPacket[]>("SHOW DATABASES LIKE 'ic\\_%'");
    const [users] = await root.query<RowDataPacket[]>("SELECT User FROM mysql.user WHERE User LIKE 'ic\\_%'");
    return [
      ...databases.map((row) => String(Object.values(row)[0])),
      ...users.map((row) => String(row.User)),
    ];
  }

  async function refusal(url: string): Promise<SqlPrivilegeError> {
    const error = await MysqlEngine.start({ url }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(SqlPrivilegeError);
    return error as SqlPrivilegeError;
  }

  beforeAll(async () => {
    server = await MariadbServer.start();
    root = await createConnection(server.adminConnection());
  }, 120_000);
  afterAll(async () => {
    await root?.end();
    await server?.stop();
  });

  it('names every privilege a read-only account lacks, on one line, with the GRANT that gives them', async () => {
    const error = await refusal(await account('reader', 'SELECT'));
    expect(error.code).toBe('SQL_ACCOUNT_PRIVILEGES');
    expect(error.missing).toEqual(['DROP', 'CREATE', 'CREATE USER']);
    expect(error.account).toBe("'reader'@'localhost'");
    expect(error.fix).toBe(
      "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, REFERENCES, CREATE TEMPORARY TABLES, CREATE VIEW, SHOW VIEW, CREATE USER, CONNECTION ADMIN ON *.* TO 'reader'@'localhost' WITH GRANT OPTION",
    );
    expect(error.message).not.toContain('\n');
    expect(error.message).toBe(
      `--db-url: the account 'reader'@'localhost' lacks DROP, CREATE, CREATE USER, which the mysql engine needs to make a database and an account per session; as an administrator, run: ${error.fix}`,
    );
    expect(await leftovers()).toEqual([]);
  });

  it('finds a missing GRANT OPTION (the per-session accounts cannot be given their rights)', async () => {
    const data =
      'SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, REFERENCES, CREATE TEMPORARY TABLES, CREATE VIEW, SHOW VIEW';
    const error = await refusal(await account('nogrant', `${data}, CREATE USER, CONNECTION ADMIN`));
    expect(error.missing).toEqual(['GRANT OPTION']);
    expect(await leftovers()).toEqual([]);
  });

  it('names the one session privilege an account cannot pass on', async () => {
    const data =
      'SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, REFERENCES, CREATE TEMPORARY TABLES, CREATE VIEW';
    const error = await refusal(await account('noview', `${data}, CREATE USER, CONNECTION ADMIN`, true));
    expect(error.missing).toEqual(['SHOW VIEW']);
    expect(await leftovers()).toEqual([]);
  });

  it('finds that the account cannot stop the queries of the session accounts (the time limit)', async () => {
    const data =
      'SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, REFERENCES, CREATE TEMPORARY TABLES, CREATE VIEW, SHOW VIEW';
    const error = await refusal(await account('nokill', `${data}, CREATE USER`, true));
    expect(error.missing).toEqual(['CONNECTION ADMIN']);
    expect(await leftovers()).toEqual([]);
  });

  /** An episode on the account of `url`: copies, a session account, DML, a killed query, a reset. */
  async function episode(url: string): Promise<void> {
    const engine = await MysqlEngine.start({ url });
    try {
      await engine.prepare(DUMP);
      const session = await engine.open('shop');
      const limits = { timeoutMs: 10_000, maxRows: 100 };
      expect(await session.query("INSERT INTO item (name) VALUES ('cap')", limits)).toMatchObject({
        kind: 'ok',
        affectedRows: 1,
      });
      expect(await session.query('SELECT count(*) FROM item', limits)).toMatchObject({ rows: [[3n]] });
      const slow = await session.query('SELECT SLEEP(20)', { timeoutMs: 300, maxRows: 1 });
      expect(slow).toMatchObject({ kind: 'error', code: 'TIMEOUT', timedOut: true });
      expect(slow.durationMs).toBeLessThan(5_000);
      await session.reset();
      expect(await session.query('SELECT count(*) FROM item', limits)).toMatchObject({ rows: [[2n]] });
      await session.close();
    } finally {
      await engine.close();
    }
    // The engine dropped its copies and accounts; the template stays for the next process.
    expect((await leftovers()).filter((name) => !name.startsWith('ic_t'))).toEqual([]);
  }

  it('runs an episode with an account given exactly the GRANT the error names', async () => {
    const url = await account('operator');
    const { fix } = await refusal(url);
    await root.query(fix);
    await episode(url);
  }, 60_000);

  it("runs an episode with data privileges on intercode's databases only (`ic\\_%`)", async () => {
    const url = await account('narrow', 'CREATE USER, CONNECTION ADMIN');
    const data =
      'SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, REFERENCES, CREATE TEMPORARY TABLES, CREATE VIEW, SHOW VIEW';
    await root.query(`GRANT ${data} ON \`ic\\_%\`.* TO 'narrow'@'localhost' WITH GRANT OPTION`);
    await episode(url);
  }, 60_000);
});
