import type { RowDataPacket } from 'mysql2/promise';
import { errorReason, SqlEngineError } from '../sql-engine-error.js';
import { type MysqlBackend, mysqlAdminConnection } from './mysql-backend.js';
import { mysqlName } from './mysql-schema.js';
import type { MysqlSlot, MysqlSlotTable } from './mysql-slot.js';

/**
 * The dump's tables to rebuild after a session that changed `touched` (lower-case names its
 * changing statements mentioned): those named, those missing, and the tables whose foreign keys
 * reference a rebuilt one (cascades).
 */
function tablesToRebuild(
  slot: MysqlSlot,
  touched: ReadonlySet<string>,
  present: ReadonlySet<string>,
): MysqlSlotTable[] {
  const pristine = new Map(slot.tables.map((table) => [table.name.toLowerCase(), table]));
  const names = new Set<string>();
  const add = (name: string) => {
    if (names.has(name) || !pristine.has(name)) return;
    names.add(name);
    for (const child of pristine.get(name)?.children ?? []) add(child);
  };
  for (const name of touched) add(name);
  for (const name of pristine.keys()) if (!present.has(name)) add(name);
  return slot.tables.filter((table) => names.has(table.name.toLowerCase()));
}

/**
 * Makes a session copy pristine again, in one multi-statement round trip on an administrator
 * connection. Without `touched`: drops and recreates the whole database (the dump's DDL, then
 * `INSERT … SELECT` from the template). With `touched` (the names the session's changing
 * statements mentioned): drops the objects the dump does not define (tables, views the session
 * made) and rebuilds only the dump's tables that were named, that are missing, or that reference
 * a rebuilt table by a foreign key (cascades); the other tables are untouched by construction.
 * Then records the AUTO_INCREMENT counters and marks the copy clean. A failure is the engine's
 * (`failure`, when the server is gone) or `SQL_ENGINE_FAILED` naming the copy.
 */
export async function rebuildMysqlCopy(
  backend: MysqlBackend,
  failure: () => SqlEngineError | undefined,
  slot: MysqlSlot,
  touched?: ReadonlySet<string>,
): Promise<void> {
  const target = mysqlName(slot.database);
  const connection = await mysqlAdminConnection(backend);
  try {
    let redo = slot.tables;
    const parts: string[] = [];
    if (touched) {
      const [objects] = await connection.query<RowDataPacket[]>(
        'SELECT TABLE_NAME AS name, TABLE_TYPE AS type FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?',
        [slot.database],
      );
      const dumped = new Set(slot.tables.map((table) => table.name.toLowerCase()));
      redo = tablesToRebuild(slot, touched, new Set(objects.map((row) => String(row.name).toLowerCase())));
      parts.push(`CREATE DATABASE IF NOT EXISTS ${target} CHARACTER SET utf8mb4 COLLATE ${slot.collation}`);
      parts.push(`USE ${target}`);
      for (const row of objects) {
        const name = String(row.name);
        if (dumped.has(name.toLowerCase())) continue;
        const kind =
          String(row.type) === 'VIEW' ? 'VIEW' : String(row.type) === 'SEQUENCE' ? 'SEQUENCE' : 'TABLE';
        parts.push(`DROP ${kind} IF EXISTS ${mysqlName(name)}`);
      }
      if (redo.length > 0)
        parts.push(`DROP TABLE IF EXISTS ${redo.map((table) => mysqlName(table.name)).join(', ')}`);
    } else {
      parts.push(`DROP DATABASE IF EXISTS ${target}`);
      parts.push(`CREATE DATABASE ${target} CHARACTER SET utf8mb4 COLLATE ${slot.collation}`);
      parts.push(`USE ${target}`);
    }
    for (const table of redo) parts.push(table.ddl);
    for (const table of redo) {
      parts.push(
        `INSERT INTO ${mysqlName(table.name)} SELECT * FROM ${mysqlName(slot.template)}.${mysqlName(table.name)}`,
      );
    }
    // Statistics computed now, from the whole table: without this a copy keeps whatever InnoDB
    // estimated when it first opened the table (often while it was still empty), and the plans,
    // hence the order of tied rows, differ between copies of one database.
    if (redo.length > 0) parts.push(`ANALYZE TABLE ${redo.map((table) => mysqlName(table.name)).join(', ')}`);
    await connection.query(parts.join(';\n'));
    const [rows] = await connection.query<RowDataPacket[]>(
      'SELECT TABLE_NAME AS name, AUTO_INCREMENT AS next FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND AUTO_INCREMENT IS NOT NULL',
      [slot.database],
    );
    const counters = touched ? new Map(slot.autoIncrements) : new Map<string, string>();
    for (const table of redo) counters.delete(table.name.toLowerCase());
    const rebuilt = new Set(redo.map((table) => table.name.toLowerCase()));
    for (const row of rows) {
      const name = String(row.name).toLowerCase();
      if (rebuilt.has(name)) counters.set(name, String(row.next));
    }
    slot.autoIncrements = counters;
    slot.dirty = false;
  } catch (error) {
    const reason = errorReason(error);
    throw (
      failure() ??
      new SqlEngineError('SQL_ENGINE_FAILED', `rebuilding ${slot.database} failed: ${reason}`, {
        cause: error,
      })
    );
  } finally {
    await connection.query('USE mysql').catch(() => {});
    connection.release();
  }
}
