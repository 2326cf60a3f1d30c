import { UsageError } from '../../core/errors.js';
import type { DumpModel } from '../dump/dump-model.js';
import type { SqlEngine } from './sql-engine.js';
import { SqliteEngine } from './sqlite/sqlite-engine.js';

/**
 * The engines by name: `sqlite` (embedded, the default), `mysql` (MariaDB or MySQL), `postgres`.
 * For `mysql` and `postgres`, `dbUrl` names a server of the user's; without it a private server is
 * started (and stopped when the engine closes), with `preload`'s databases (its loaded data is kept
 * in the user cache for the next start; `prepare` the same dump afterwards). The server engines (and
 * their client libraries) are loaded only when chosen. `concurrency`: a run's, its environments
 * living as long as it does (SQLite starts that many session processes ahead of need); without it,
 * sessions come and go (SQLite keeps one process ready, replaced as soon as it is taken).
 */
export async function createSqlEngine(
  name: string,
  dbUrl?: string,
  preload?: Promise<DumpModel>,
  concurrency?: number,
): Promise<SqlEngine> {
  switch (name) {
    case 'sqlite':
      if (dbUrl) throw new UsageError('--db-url applies to the mysql and postgres engines, not sqlite');
      return new SqliteEngine(
        concurrency === undefined
          ? { spareProcesses: 1, refillSpares: true }
          : { spareProcesses: concurrency },
      );
    case 'mysql': {
      const { MysqlEngine } = await import('./mysql/mysql-engine.js');
      return MysqlEngine.start(dbUrl ? { url: dbUrl } : preload ? { preload } : {});
    }
    case 'postgres': {
      const { PostgresEngine } = await import('./postgres/postgres-engine.js');
      return PostgresEngine.start(dbUrl ? { url: dbUrl } : preload ? { preload } : {});
    }
    default:
      throw new UsageError(`--engine: unknown engine "${name}" (known: sqlite, mysql, postgres)`);
  }
}
