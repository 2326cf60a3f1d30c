import type { DumpDatabase, DumpModel } from '../dump/dump-model.js';
import { SqlEngineError } from './sql-engine-error.js';

/** What an engine keeps of a prepared database: at least its name and the dump it came from. */
export interface PreparedDatabase {
  /** The name as the dump spells it. */
  readonly name: string;
  /** The SHA-256 of the dump that defined it. */
  readonly sha256: string;
}

/**
 * The databases an engine has prepared, by case-insensitive name. A database name belongs to one
 * dump: preparing another dump that defines the same name is an error.
 */
export class PreparedDatabases<P extends PreparedDatabase> {
  readonly #byName = new Map<string, P>();

  /** Throws `SQL_ENGINE_FAILED` when the dump defines a database another dump defined already. */
  assertCompatible(dump: DumpModel): void {
    for (const database of dump.databases) {
      const known = this.#byName.get(database.name.toLowerCase());
      if (known && known.sha256 !== dump.sha256) {
        throw new SqlEngineError(
          'SQL_ENGINE_FAILED',
          `database ${database.name} is defined by two different dumps`,
        );
      }
    }
  }

  /** The dump's databases not prepared yet (each name once). */
  pending(dump: DumpModel): DumpDatabase[] {
    const seen = new Set<string>();
    return dump.databases.filter((database) => {
      const name = database.name.toLowerCase();
      if (this.#byName.has(name) || seen.has(name)) return false;
      seen.add(name);
      return true;
    });
  }

  add(prepared: P): void {
    this.#byName.set(prepared.name.toLowerCase(), prepared);
  }

  /** The prepared database of that name, if any. */
  find(database: string): P | undefined {
    return this.#byName.get(database.toLowerCase());
  }

  /** The prepared database of that name; throws `SQL_DATABASE_UNKNOWN` when no prepared dump defines it. */
  get(database: string): P {
    const prepared = this.find(database);
    if (!prepared)
      throw new SqlEngineError('SQL_DATABASE_UNKNOWN', `no prepared dump defines database ${database}`);
    return prepared;
  }

  /** Names of the prepared databases, as the dumps spell them. */
  names(): string[] {
    return [...this.#byName.values()].map((prepared) => prepared.name);
  }
}
