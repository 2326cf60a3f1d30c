import type { DumpDatabase } from '../../dump/dump-model.js';
import { errorReason, SqlEngineError } from '../sql-engine-error.js';
import { AGENT_ROLE, dropForce, type PostgresBackend, postgresAdminClient } from './postgres-backend.js';
import { pgDatabase, pgName, pgString } from './postgres-schema.js';

/**
 * Functions PostgreSQL lets every role run that reach beyond the database, revoked in each template
 * (copies inherit it; only the owner of `pg_catalog`, a superuser, can): `pg_logical_emit_message`
 * writes straight to the server's write-ahead log, outside the episode's transaction (a large
 * message could fill the log's store, which stops the server), and the advisory locks are shared by
 * every session of the server (intercode's own template builds take them).
 */
const REVOKE_SERVER_WIDE_FUNCTIONS = `DO $$ DECLARE f regprocedure; BEGIN
  FOR f IN SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p
    WHERE p.pronamespace = 'pg_catalog'::regnamespace
      AND (p.proname ~ '^pg_(try_)?advisory_' OR p.proname = 'pg_logical_emit_message')
  LOOP EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f); END LOOP;
END $$`;

/** What a template's comment starts with once it is complete (the rest is {@link BuiltTemplate} as JSON). */
const READY = 'intercode template ';

/** What the engine keeps of a built template database. */
export interface BuiltTemplate {
  /** The statement that puts the sequences back where the template has them, or ''. */
  readonly sequenceReset: string;
  /** Foreign keys of the dump that PostgreSQL refused (left out), with the reason. */
  readonly skippedForeignKeys: string[];
}

/**
 * Creates the template database of a dump database, unless a complete one is there (marked by its
 * comment: on a URL server templates are kept for the next process), under a server-wide advisory
 * lock so that concurrent processes build it once.
 */
export async function buildPostgresTemplate(
  backend: PostgresBackend,
  database: DumpDatabase,
  template: string,
): Promise<BuiltTemplate> {
  const lock = await backend.pool.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', [`intercode:${template}`]);
    const { rows } = await lock.query<{ comment: string | null }>(
      "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
      [template],
    );
    const comment = rows[0]?.comment ?? '';
    if (comment.startsWith(READY)) return JSON.parse(comment.slice(READY.length)) as BuiltTemplate;
    await lock.query(`DROP DATABASE IF EXISTS ${pgName(template)}${dropForce(backend)}`);
    await lock.query(`CREATE DATABASE ${pgName(template)} TEMPLATE template0 ENCODING 'UTF8'`);
    await lock.query(`REVOKE ALL ON DATABASE ${pgName(template)} FROM PUBLIC`);
    const built = await loadTemplate(backend, database, template);
    await lock.query(`COMMENT ON DATABASE ${pgName(template)} IS ${pgString(READY + JSON.stringify(built))}`);
    return built;
  } catch (error) {
    if (error instanceof SqlEngineError) throw error;
    throw new SqlEngineError(
      'SQL_ENGINE_FAILED',
      `database ${database.name} does not load into PostgreSQL: ${errorReason(error)}`,
      { cause: error },
    );
  } finally {
    await lock.query('SELECT pg_advisory_unlock(hashtext($1))', [`intercode:${template}`]).catch(() => {});
    lock.release();
  }
}

/**
 * Fills a new template database in one transaction, as the `ic_agent` role (which then owns the
 * tables): tables, rows, indexes, identity counters, then each foreign key in its own savepoint
 * (PostgreSQL refuses some that MySQL takes, e.g. onto columns without a unique key: those are
 * left out and reported). Returns the statement that puts the sequences back.
 */
async function loadTemplate(
  backend: PostgresBackend,
  database: DumpDatabase,
  template: string,
): Promise<BuiltTemplate> {
  const tables = pgDatabase(database, backend.textMode);
  const client = await postgresAdminClient(backend, template);
  const skippedForeignKeys: string[] = [];
  try {
    if (backend.textMode === 'citext') await client.query('CREATE EXTENSION IF NOT EXISTS citext');
    await client.query(`GRANT USAGE, CREATE ON SCHEMA public TO ${AGENT_ROLE}`);
    if (backend.superuser) await client.query(REVOKE_SERVER_WIDE_FUNCTIONS);
    await client.query(`BEGIN; SET LOCAL ROLE ${AGENT_ROLE}`);
    for (const [index, table] of tables.entries()) {
      try {
        await client.query(
          [table.create, ...table.inserts, ...table.indexes, ...table.sequences].join(';\n'),
        );
      } catch (error) {
        const source = database.tables[index]!;
        throw new SqlEngineError(
          'SQL_ENGINE_FAILED',
          `${database.name}.${source.name} (dump line ${source.line}) does not load into PostgreSQL: ${errorReason(error)}`,
          { cause: error },
        );
      }
    }
    for (const table of tables) {
      for (const key of table.foreignKeys) {
        await client.query('SAVEPOINT fk');
        try {
          await client.query(key);
          await client.query('RELEASE SAVEPOINT fk');
        } catch (error) {
          await client.query('ROLLBACK TO SAVEPOINT fk');
          skippedForeignKeys.push(`${key}: ${errorReason(error)}`);
        }
      }
    }
    // pg_sequences hides last_value when is_called is false: read each sequence itself.
    const { rows: sequences } = await client.query<{ name: string }>(
      "SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename) AS name FROM pg_sequences",
    );
    const resets: string[] = [];
    for (const { name } of sequences) {
      const { rows: state } = await client.query<{ last: string; called: boolean }>(
        `SELECT last_value::text AS last, is_called AS called FROM ${name}`,
      );
      const row = state[0];
      if (row) resets.push(`setval(${pgString(name)}, ${row.last}, ${row.called})`);
    }
    await client.query('COMMIT');
    return { sequenceReset: resets.length > 0 ? `SELECT ${resets.join(', ')}` : '', skippedForeignKeys };
  } finally {
    await client.end().catch(() => {});
  }
}
