import type { DumpColumn, DumpTable } from '../dump/dump-model.js';
import type { SqlLiteral } from '../dump/sql-literal.js';
import { SqlEngineError } from './sql-engine-error.js';

/** MySQL's current-time defaults. */
const NOW = /^(current_timestamp|now|localtimestamp|localtime)(\(\d*\))?$/i;

/** How an engine writes a column default. */
export interface DefaultForms {
  /** `SQLite`, `PostgreSQL`: for the message when a default has no form. */
  readonly engine: string;
  /** The engine's own form of MySQL's current time (`CURRENT_TIMESTAMP`, `LOCALTIMESTAMP(0)`). */
  readonly now: string;
  /** A literal default as the engine's SQL. */
  literal(value: SqlLiteral): string;
}

/**
 * The ` DEFAULT …` clause of a converted column, '' when it has none: MySQL's current-time
 * defaults in the engine's form, literals as the engine writes them; any other expression is
 * `SQL_ENGINE_FAILED` (no form in the engine).
 */
export function defaultClause(table: DumpTable, column: DumpColumn, forms: DefaultForms): string {
  const value = column.default;
  if (value === undefined || value.kind === 'null') return '';
  if (value.kind === 'expression') {
    if (NOW.test(value.text)) return ` DEFAULT ${forms.now}`;
    throw new SqlEngineError(
      'SQL_ENGINE_FAILED',
      `no ${forms.engine} form of the default ${value.text} of ${table.name}.${column.name}`,
    );
  }
  return ` DEFAULT ${forms.literal(value)}`;
}
