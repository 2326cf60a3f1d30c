import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { writeFileAtomic } from '../../../core/host/atomic-write.js';
import type { DumpDatabase, DumpModel } from '../../dump/dump-model.js';
import { errorReason, SqlEngineError } from '../sql-engine-error.js';
import {
  SQLITE_CONVERTER_VERSION,
  sqliteColumnType,
  sqliteCreateIndexes,
  sqliteCreateTable,
  sqliteName,
  sqliteValue,
} from './sqlite-schema.js';

/**
 * Builds one dump database as a SQLite database image (the bytes of a database file): tables,
 * indexes, then every row, in one transaction. A row that SQLite rejects (for instance a primary-key
 * value that repeats once case is ignored) is a `SQL_ENGINE_FAILED` error naming the table and row.
 */
export function buildSqliteImage(database: DumpDatabase): Buffer {
  let db: Database.Database;
  try {
    db = new Database(':memory:');
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
    throw new SqlEngineError(
      'SQL_ENGINE_UNAVAILABLE',
      `better-sqlite3 cannot load its native module (run: npm rebuild better-sqlite3): ${reason}`,
      { cause },
    );
  }
  try {
    db.defaultSafeIntegers(true);
    db.pragma('foreign_keys = OFF');
    db.transaction(() => {
      for (const table of database.tables) {
        db.exec(sqliteCreateTable(table));
        for (const index of sqliteCreateIndexes(table)) db.exec(index);
        if (table.rows.length === 0) continue;
        const types = table.columns.map((column) => sqliteColumnType(column, table.collation));
        const marks = types.map(() => '?').join(', ');
        const insert = db.prepare(`INSERT INTO ${sqliteName(table.name)} VALUES (${marks})`);
        table.rows.forEach((row, i) => {
          try {
            insert.run(row.map((literal, c) => sqliteValue(literal, types[c]!)));
          } catch (cause) {
            const reason = cause instanceof Error ? cause.message : String(cause);
            throw new SqlEngineError(
              'SQL_ENGINE_FAILED',
              `${database.name}.${table.name} row ${i + 1} does not load into SQLite: ${reason}`,
              { cause },
            );
          }
        });
      }
    })();
    return db.serialize();
  } catch (error) {
    if (error instanceof SqlEngineError) throw error;
    const reason = errorReason(error);
    throw new SqlEngineError(
      'SQL_ENGINE_FAILED',
      `database ${database.name} does not convert to SQLite: ${reason}`,
      {
        cause: error,
      },
    );
  } finally {
    db.close();
  }
}

/** The folder of a dump's built SQLite files: keyed by the dump's SHA-256 and the converter version. */
export function pristineFolder(cacheRoot: string, dump: DumpModel): string {
  return join(cacheRoot, 'sql', 'sqlite', `${dump.sha256.slice(0, 32)}-c${SQLITE_CONVERTER_VERSION}`);
}

/** The file of one database in that folder (names percent-encoded, so any name is a safe file name). */
export function pristineFile(folder: string, database: string): string {
  return join(folder, `${encodeURIComponent(database)}.sqlite`);
}

/**
 * Makes sure every database of a dump has its pristine SQLite file (building the missing ones, each
 * written atomically so that concurrent builders never see half a file); returns name → file.
 */
export function ensurePristineFiles(cacheRoot: string, dump: DumpModel): Map<string, string> {
  const folder = pristineFolder(cacheRoot, dump);
  const files = new Map<string, string>();
  for (const database of dump.databases) {
    const file = pristineFile(folder, database.name);
    if (!existsSync(file)) writeFileAtomic(file, buildSqliteImage(database));
    files.set(database.name, file);
  }
  return files;
}
