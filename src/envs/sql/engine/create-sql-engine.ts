import { UsageError } from '../../../core/errors.js';
import type { SqlEngine } from './sql-engine.js';
import { SqliteEngine } from './sqlite-engine.js';

/** The engines by name: `sqlite` (embedded, the default), `mysql`, `postgres`. */
export async function createSqlEngine(name: string, dbUrl?: string): Promise<SqlEngine> {
  switch (name) {
    case 'sqlite':
      if (dbUrl) throw new UsageError('--db-url applies to the mysql and postgres engines, not sqlite');
      return new SqliteEngine();
    default:
      throw new UsageError(`--engine: unknown engine "${name}" (known: sqlite)`);
  }
}
