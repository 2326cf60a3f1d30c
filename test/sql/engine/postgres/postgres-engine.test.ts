/**
 * The PostgreSQL engine on a server it starts itself (see `../server-engine-suite.ts` for what
 * is checked). Skipped when PostgreSQL is not installed or the upstream data mirror is missing.
 */
import { expect, it } from 'vitest';
import { PostgresEngine } from '../../../../src/sql/engine/postgres/postgres-engine.js';
import type { SqlEngine } from '../../../../src/sql/engine/sql-engine.js';
import { postgresBinaries } from '../../../../src/sql/server/server-binaries.js';
import { NORMAL, rows, serverEngineSuite } from '../server-engine-suite.js';

function installed(): boolean {
  try {
    postgresBinaries();
    return true;
  } catch {
    return false;
  }
}

async function serverOf(engine: SqlEngine) {
  const server = await (engine as PostgresEngine).server();
  if (!server) throw new Error('the engine has no server of its own');
  return server;
}

serverEngineSuite({
  title: 'PostgresEngine',
  available: installed(),
  kind: 'postgres',
  start: () => PostgresEngine.start(),
  server: serverOf,
  viaUrl: async (engine) => {
    const server = await serverOf(engine);
    return new PostgresEngine({
      url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(server.socketDir)}`,
    });
  },
  quote: (name: string) => `"${name.toLowerCase()}"`,
  sql: {
    currentDatabase: "SELECT translate(current_database(), '_', '-')",
    sleep: 'SELECT pg_sleep(100)',
    spin: 'SELECT count(*) FROM generate_series(1, 1000000) a, generate_series(1, 1000000) b',
    tenMillion:
      'SELECT a.x FROM generate_series(1, 1000) a(x), generate_series(1, 1000) b(x), generate_series(1, 10) c(x)',
    tableCount: "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
    forbidden: [
      "SELECT pg_read_file('/etc/passwd')",
      "SELECT pg_read_binary_file('/etc/passwd')",
      "SELECT * FROM pg_ls_dir('.')",
      "COPY city FROM '/etc/passwd'",
      "COPY city TO '/tmp/intercode-leak'",
      "COPY (SELECT 1) TO PROGRAM 'id'",
      "SELECT lo_import('/etc/passwd')",
      "DO $$ BEGIN EXECUTE 'SELECT pg_read' || '_file(''/etc/passwd'')'; END $$",
      "DO $$ BEGIN EXECUTE 'COPY city FROM PROG' || 'RAM ''id'''; END $$",
      "CREATE FUNCTION f() RETURNS int LANGUAGE c AS 'libc', 'getpid'",
      'CREATE EXTENSION dblink',
      "SELECT dblink_connect('dbname=postgres')",
      'CREATE ROLE intruder',
      'ALTER ROLE CURRENT_USER SUPERUSER',
      'SET ROLE postgres',
      'SET SESSION AUTHORIZATION postgres',
      "SELECT set_config('role', 'postgres', false)",
      'CREATE DATABASE intruder',
      'DROP DATABASE concert_singer',
      'USE concert_singer',
      'SELECT * FROM concert_singer.public.singer',
      'SELECT * FROM pg_authid',
      'ALTER SYSTEM SET fsync = on',
      "LOAD 'auto_explain'",
      'SELECT pg_terminate_backend(pg_backend_pid())',
      'COMMIT',
      'BEGIN',
      'ROLLBACK',
      'SAVEPOINT s',
      'VACUUM',
    ],
    vandalism: [
      "UPDATE singer SET Name = 'Nobody'",
      'DROP TABLE singer_in_concert',
      'CREATE TABLE singer_in_concert (x int)',
      'DELETE FROM concert WHERE concert_ID > 2',
      "INSERT INTO stadium (Name) VALUES ('Extra')",
      'ALTER TABLE singer ADD COLUMN extra int DEFAULT 7',
      'CREATE TABLE extra (a int)',
      'CREATE VIEW v AS SELECT * FROM stadium',
      'PREPARE p AS SELECT 1',
      "SET work_mem = '1MB'",
      'CREATE TEMP TABLE scratch AS SELECT * FROM singer',
    ],
    privileges: {
      sql: `SELECT rolsuper, rolcreatedb, rolcreaterole, rolbypassrls,
        pg_has_role(current_user, 'pg_read_server_files', 'MEMBER'),
        pg_has_role(current_user, 'pg_write_server_files', 'MEMBER'),
        pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER'),
        (SELECT array_agg(datname::text ORDER BY datname) FROM pg_database WHERE datallowconn AND has_database_privilege(datname, 'CONNECT'))
        FROM pg_roles WHERE rolname = current_user`,
      check: (rows, database) => {
        expect(rows).toEqual([[false, false, false, false, false, false, false, [database]]]);
      },
    },
    values: {
      sql: "SELECT 42, CAST(12.50 AS numeric(6,2)), 1.5::float8, 'x', TIMESTAMP '2017-09-03 08:43:56', DATE '2017-09-03', NULL, 9223372036854775807, sum(3)",
      row: [42n, '12.50', 1.5, 'x', '2017-09-03 08:43:56', '2017-09-03', null, 9223372036854775807n, 3n],
      types: ['int4', 'numeric', 'float8', 'text', 'timestamp', 'date', 'text', 'int8', 'int8'],
    },
  },
  goldExpectations: ({ ok }) => {
    // PostgreSQL's dialect refuses some of Spider's MySQL-isms (see the printed classes).
    expect(ok).toBeGreaterThanOrEqual(930);
  },
  more: (open) => {
    it("shows the database's own name, not its copy's, and one role name, in the values an agent reads", async () => {
      const sessions = [await open('world_1'), await open('world_1')];
      const names = async (sql: string) =>
        Promise.all(sessions.map(async (session) => rows(await session.query(sql, NORMAL))));
      // The two copies are two databases on the server.
      const real = await names("SELECT translate(current_database(), '_', '-')");
      expect(real[0]).not.toEqual(real[1]);
      // What an agent asks shows the database's name in both.
      expect(await names('SELECT current_database()')).toEqual([[['world_1']], [['world_1']]]);
      const catalog =
        "SELECT DISTINCT table_catalog FROM information_schema.tables WHERE table_schema = 'public'";
      expect(await names(catalog)).toEqual([[['world_1']], [['world_1']]]);
      // A name qualified with the database's own name means the session's copy, on every copy.
      expect(await names('SELECT count(*) FROM world_1.public.city')).toEqual(
        await names('SELECT count(*) FROM city'),
      );
      // The session's role, numbered by the server's order of copies, shows as one name.
      expect(await names('SELECT current_user')).toEqual([[['intercode']], [['intercode']]]);
      await Promise.all(sessions.map((session) => session.reset()));
    });
    it('reads a double-quoted name that names nothing as a string, and every other as a name', async () => {
      const session = await open('concert_singer');
      const q = async (sql: string) => rows(await session.query(sql, NORMAL));
      const france = await q("SELECT Name FROM singer WHERE Country = 'France' ORDER BY Name");
      expect(france.length).toBeGreaterThan(0);
      // A value (turned into a string before it runs), in a list too.
      expect(await q('SELECT Name FROM singer WHERE Country = "France" ORDER BY Name')).toEqual(france);
      expect(await q('SELECT Name FROM singer WHERE Country IN ("France", "Nowhere") ORDER BY Name')).toEqual(
        france,
      );
      // A column of the database (any case of it) stays a name, the way PostgreSQL reads it: "country"
      // is the column, "Country" names no column (PostgreSQL folds the table's names) and so is a string.
      expect(await q(`SELECT Name FROM singer WHERE "country" = 'France' ORDER BY Name`)).toEqual(france);
      expect(await q('SELECT "Country" FROM singer LIMIT 1')).toEqual([['Country']]);
      // Aliases, with and without AS, stay names.
      const count = await q('SELECT count(*) FROM singer');
      expect(await q('SELECT count(*) "n" FROM singer ORDER BY "n"')).toEqual(count);
      const byCountry = await q('SELECT Country, count(*) FROM singer GROUP BY Country ORDER BY Country');
      expect(
        await q('SELECT Country AS "place", count(*) FROM singer GROUP BY "place" ORDER BY "place"'),
      ).toEqual(byCountry);
      // After a write in the episode the names are not judged ahead: PostgreSQL's error decides.
      await session.query('UPDATE singer SET Age = Age', NORMAL);
      expect(await q('SELECT Name FROM singer WHERE Country = "France" ORDER BY Name')).toEqual(france);
      await session.reset();
    });
  },
});
