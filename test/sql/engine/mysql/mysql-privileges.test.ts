/**
 * Hostile class (issue 11, SQL): a word filter is theatre where the words can be built at run time;
 * the barrier must be the account's privileges. The MySQL guard now refuses only what privileges
 * cannot express (the copy itself, the account's own password, XA, named locks, prepared
 * statements, statements that end the connection): each item it used to refuse for safety reaches
 * the server, which denies it with its own error (never `FORBIDDEN_STATEMENT`), and the session
 * goes on. Also: what the server bounds for memory (`max_session_mem_used`, MEMORY tables).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMysqlDump } from '../../../../src/sql/dump/parse-mysql-dump.js';
import { MysqlEngine } from '../../../../src/sql/engine/mysql/mysql-engine.js';
import { QUERY_ERROR, type SqlSession } from '../../../../src/sql/engine/sql-engine.js';
import { mariadbBinaries } from '../../../../src/sql/server/server-binaries.js';

const DUMP = parseMysqlDump(`CREATE DATABASE \`shop\`;
USE \`shop\`;
CREATE TABLE \`item\` (\`id\` int NOT NULL AUTO_INCREMENT, \`name\` varchar(20), PRIMARY KEY (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO \`item\` VALUES (1,'pen'),(2,'ink');
`);

function installed(): boolean {
  try {
    mariadbBinaries();
    return true;
  } catch {
    return false;
  }
}

const SPECIFIC = 'ER_SPECIFIC_ACCESS_DENIED_ERROR';
const TABLE = 'ER_TABLEACCESS_DENIED_ERROR';
const DATABASE = 'ER_DBACCESS_DENIED_ERROR';
const ACCESS = 'ER_ACCESS_DENIED_ERROR';

/** Each item the old guard refused, and the server's own error for it. */
const STOPPED_BY_THE_SERVER: readonly (readonly [string, string | undefined])[] = [
  ["SELECT * FROM item INTO OUTFILE '/tmp/intercode-leak'", SPECIFIC],
  ["SELECT 1 INTO DUMPFILE '/tmp/intercode-leak'", SPECIFIC],
  ["LOAD DATA INFILE '/etc/passwd' INTO TABLE item", ACCESS],
  ["LOAD XML INFILE '/etc/passwd' INTO TABLE item", ACCESS],
  // local_infile is off on the server and the client: the server's message, without a code.
  ["LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE item", undefined],
  ["SELECT sys_exec('id')", 'ER_PROCACCESS_DENIED_ERROR'],
  ["CREATE FUNCTION sys_exec RETURNS INT SONAME 'lib_mysqludf_sys.so'", DATABASE],
  ["INSTALL PLUGIN x SONAME 'x.so'", TABLE],
  ["INSTALL SONAME 'ha_connect'", TABLE],
  ['UNINSTALL PLUGIN sequence', TABLE],
  ['GRANT ALL PRIVILEGES ON *.* TO CURRENT_USER', ACCESS],
  ['GRANT SELECT ON shop.item TO CURRENT_USER', TABLE],
  ['REVOKE SELECT ON shop.item FROM CURRENT_USER', TABLE],
  ["CREATE USER 'intruder'@'%'", SPECIFIC],
  ["DROP USER 'root'@'localhost'", SPECIFIC],
  ["RENAME USER 'root'@'localhost' TO 'x'@'y'", SPECIFIC],
  ['CREATE ROLE r', SPECIFIC],
  ['SET GLOBAL max_connections = 1', SPECIFIC],
  ['SET @@global.max_connections = 1', SPECIFIC],
  ['SET SESSION sql_log_bin = 0', SPECIFIC],
  ['SHUTDOWN', SPECIFIC],
  ['FLUSH TABLES', SPECIFIC],
  ['FLUSH PRIVILEGES', SPECIFIC],
  ['RESET MASTER', SPECIFIC],
  ['PURGE BINARY LOGS BEFORE NOW()', SPECIFIC],
  ["CHANGE MASTER TO MASTER_HOST='x'", SPECIFIC],
  ["BINLOG 'x'", SPECIFIC],
  ['BACKUP STAGE START', SPECIFIC],
  ["CREATE SERVER s FOREIGN DATA WRAPPER mysql OPTIONS (HOST 'x')", SPECIFIC],
  ['SELECT * FROM mysql.user', TABLE],
  ['CREATE TABLE mysql.x (a int)', TABLE],
  ['CREATE PROCEDURE p() SELECT 1', DATABASE],
  ['CREATE EVENT e ON SCHEDULE EVERY 1 SECOND DO SELECT 1', DATABASE],
  ['CREATE TRIGGER t BEFORE INSERT ON item FOR EACH ROW SET NEW.name = 1', TABLE],
  // Tables a session creates are InnoDB, in the store's capped tablespace.
  ['CREATE TABLE m (a int) ENGINE=MEMORY', 'ER_OPTION_PREVENTS_STATEMENT'],
  ['CREATE TEMPORARY TABLE m (a int) ENGINE=Aria', 'ER_OPTION_PREVENTS_STATEMENT'],
];

describe.skipIf(!installed())('MariaDB: the session account is the barrier, not a word filter', () => {
  let engine: MysqlEngine;
  let session: SqlSession;
  const limits = { timeoutMs: 20_000, maxRows: 10 };

  beforeAll(async () => {
    engine = await MysqlEngine.start();
    await engine.prepare(DUMP);
    session = await engine.open('shop');
  });
  afterAll(async () => {
    await engine?.close();
  });

  it.each(STOPPED_BY_THE_SERVER)('the server stops %s (%s)', async (sql, code) => {
    const outcome = await session.query(sql, limits);
    expect(outcome.kind).toBe('error');
    if (outcome.kind !== 'error') return;
    expect(outcome.code, outcome.message).not.toBe(QUERY_ERROR.forbidden);
    expect(outcome.code, outcome.message).toBe(code);
    const after = await session.query('SELECT count(*) FROM item', limits);
    expect(after.kind === 'rows' && Number(after.rows[0]?.[0])).toBe(2);
  });

  it('reads no file without FILE: LOAD_FILE gives NULL', async () => {
    const outcome = await session.query("SELECT LOAD_FILE('/etc/passwd')", limits);
    expect(outcome.kind === 'rows' && outcome.rows).toEqual([[null]]);
  });

  it('keeps a session within its memory bound, whatever it sets', async () => {
    await session.query(
      'SET SESSION max_session_mem_used = 10000000000, max_heap_table_size = 10000000000',
      limits,
    );
    const outcome = await session.query('SELECT @@max_session_mem_used, @@max_heap_table_size', limits);
    expect(outcome.kind === 'rows' && outcome.rows[0]?.map(Number)).toEqual([2 ** 30, 64 * 2 ** 20]);
    await session.reset();
  });
});
