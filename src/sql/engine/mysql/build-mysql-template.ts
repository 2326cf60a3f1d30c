import type { RowDataPacket } from 'mysql2/promise';
import type { DumpDatabase } from '../../dump/dump-model.js';
import { sqlBatches } from '../sql-batches.js';
import { errorReason, SqlEngineError } from '../sql-engine-error.js';
import { type MysqlBackend, mysqlAdminConnection } from './mysql-backend.js';
import { mysqlInserts, mysqlName } from './mysql-schema.js';

/** The table whose presence marks a template as complete. */
const READY_TABLE = '_intercode_ready';

/**
 * Creates the template database of a dump database (unless a complete one is there: on a URL
 * server templates are kept for the next process), under a server-wide lock so that concurrent
 * processes build it once: the dump's `CREATE TABLE`s (`ddl`, one per table) and rows, sent in
 * multi-statement batches; when a batch fails, again one statement at a time, so that the error
 * names the table (and dump line) that does not load.
 */
export async function buildMysqlTemplate(
  backend: MysqlBackend,
  database: DumpDatabase,
  template: string,
  ddl: readonly string[],
  collation: string,
): Promise<void> {
  const connection = await mysqlAdminConnection(backend);
  const lock = `intercode:${template}`;
  const recreate = `DROP DATABASE IF EXISTS ${mysqlName(template)}; CREATE DATABASE ${mysqlName(template)} CHARACTER SET utf8mb4 COLLATE ${collation}; USE ${mysqlName(template)}`;
  try {
    await connection.query('SELECT GET_LOCK(?, 600)', [lock]);
    const [ready] = await connection.query<RowDataPacket[]>(
      'SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
      [template, READY_TABLE],
    );
    if (ready.length > 0) return;
    await connection.query(recreate);
    const statements = database.tables.flatMap((table, index) => [ddl[index]!, ...mysqlInserts(table)]);
    try {
      for (const batch of sqlBatches(statements, ';\n', 8_000_000)) await connection.query(batch);
    } catch {
      // Find the table that fails, one statement at a time (the batch stopped at it).
      await connection.query(recreate);
      for (const [index, table] of database.tables.entries()) {
        try {
          await connection.query(ddl[index]!);
          for (const insert of mysqlInserts(table)) await connection.query(insert);
        } catch (error) {
          throw new SqlEngineError(
            'SQL_ENGINE_FAILED',
            `${database.name}.${table.name} (dump line ${table.line}) does not load into ${backend.version}: ${errorReason(error)}`,
            { cause: error },
          );
        }
      }
    }
    await connection.query(`CREATE TABLE ${mysqlName(READY_TABLE)} (\`version\` int)`);
  } finally {
    await connection.query('SELECT RELEASE_LOCK(?)', [lock]).catch(() => {});
    connection.release();
  }
}
