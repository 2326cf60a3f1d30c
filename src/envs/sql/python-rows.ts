import type { RowsOutcome, SqlEngineId } from '../../sql/engine/sql-engine.js';
import {
  PyBytes,
  PyDate,
  PyDateTime,
  PyDecimal,
  PyTimedelta,
  type PyValue,
  pyInt,
} from '../python-compat/python-repr.js';

/**
 * Each engine's values as the Python driver upstream-style code would have received them, so that
 * rows compare as `str(row)` did upstream: SQLite as Python's `sqlite3` (int, float, str, bytes,
 * None), MySQL/MariaDB as `mysql.connector` and PostgreSQL as `psycopg2` (Decimal for exact numerics,
 * datetime/date/timedelta for temporal types, int, float, str, None). Engines that report column
 * types use them; otherwise the JS type decides.
 */
export function toPythonRows(engine: SqlEngineId, outcome: RowsOutcome): PyValue[][] {
  // SQLite's values are Python's already (bigint, number, string, null) but for bytes: such rows are
  // used as they are, which is what `toPython` would copy them into.
  if (engine === 'sqlite') {
    return outcome.rows.map((row) =>
      row.every(isPythonAlready)
        ? (row as PyValue[])
        : row.map((value) => toPython(engine, value, undefined)),
    );
  }
  const types = (outcome as RowsOutcome & { columnTypes?: readonly string[] }).columnTypes;
  return outcome.rows.map((row) => row.map((value, column) => toPython(engine, value, types?.[column])));
}

/** A value `toPython` returns unchanged for SQLite. */
function isPythonAlready(value: unknown): boolean {
  const type = typeof value;
  return value === null || type === 'bigint' || type === 'number' || type === 'string';
}

function toPython(engine: SqlEngineId, value: unknown, columnType: string | undefined): PyValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'boolean') return engine === 'mysql' ? (value ? 1n : 0n) : value;
  if (value instanceof Uint8Array) return new PyBytes(value);
  const type = (columnType ?? '').toLowerCase();
  if (value instanceof Date) return PyDateTime.fromIso(value.toISOString().replace('Z', ''));
  if (typeof value === 'number') {
    if (engine !== 'sqlite' && /int|serial|year|bit/.test(type) && Number.isInteger(value))
      return pyInt(value);
    return value;
  }
  if (typeof value === 'string') {
    if (engine === 'sqlite' || type === '') return value;
    if (/^(decimal|numeric|newdecimal)/.test(type)) return new PyDecimal(value);
    if (/int|serial|year/.test(type) && /^-?\d+$/.test(value)) return pyInt(value);
    if (/^(double|float|real)/.test(type)) return Number(value);
    if (/^(datetime|timestamp)/.test(type)) return PyDateTime.fromIso(value.replace(' ', 'T'));
    if (type === 'date') return PyDate.fromIso(value);
    if (type === 'time' && engine === 'mysql') return PyTimedelta.fromMysqlTime(value);
    return value;
  }
  return String(value);
}

/** A JSON-safe copy of result rows for observations and run files (bigint as number or string). */
export function jsonSafeRows(rows: readonly (readonly unknown[])[]): unknown[][] {
  return rows.map((row) =>
    row.map((value) => {
      if (typeof value === 'bigint') {
        return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
          ? Number(value)
          : value.toString();
      }
      if (value instanceof Uint8Array) return `0x${Buffer.from(value).toString('hex')}`;
      if (value instanceof Date) return value.toISOString();
      return value;
    }),
  );
}
