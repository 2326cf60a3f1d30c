/**
 * Python's `repr()` and `str()` of the values a SQL driver hands back, reproduced in TypeScript.
 *
 * InterCode's SQL reward compares result rows by their Python text: upstream turns every row
 * (a tuple from `mysql.connector`'s `fetchall()`) into `str(row)`, e.g. `(3, 'Bob')`,
 * `('x',)`, `(Decimal('1.50'), None)` or `(datetime.datetime(2010, 1, 1, 0, 0),)`, counts those
 * strings as multisets and ranks them lexicographically for Kendall's tau. To score the same way,
 * an engine maps each value of its driver into the {@link PyValue} model below, and
 * {@link pyRowStr} renders the row exactly as Python would have printed it.
 *
 * ## The Python value model
 *
 * | Python type                  | {@link PyValue} form                  | `repr` example                             |
 * | ---------------------------- | ------------------------------------- | ------------------------------------------ |
 * | `None`                       | `null`                                | `None`                                     |
 * | `bool`                       | `boolean`                             | `True`                                     |
 * | `int` (any size)             | `bigint`                              | `42`                                       |
 * | `float`                      | `number`                              | `1.0`, `0.1`, `1e-05`, `1e+16`, `inf`      |
 * | `str`                        | `string`                              | `'Bob'`, `"it's"`, `'a\nb'`                |
 * | `decimal.Decimal`            | {@link PyDecimal}                     | `Decimal('1.50')`                          |
 * | `datetime.date`              | {@link PyDate}                        | `datetime.date(2010, 1, 1)`                |
 * | `datetime.datetime` (naive)  | {@link PyDateTime}                    | `datetime.datetime(2010, 1, 1, 0, 0)`      |
 * | `datetime.time` (naive)      | {@link PyTime}                        | `datetime.time(12, 30)`                    |
 * | `datetime.timedelta`         | {@link PyTimedelta}                   | `datetime.timedelta(seconds=5)`            |
 * | `bytes` / `bytearray`        | {@link PyBytes}                       | `b'\x00a'`, `bytearray(b'a')`              |
 * | `tuple`                      | {@link PyTuple}                       | `(1,)`                                     |
 * | `list`                       | `readonly PyValue[]`                  | `[1, 2]`                                   |
 *
 * The split that matters most: **a JavaScript `number` is always a Python `float`** and a Python
 * `int` is always a `bigint`, because `str((1,))` is `(1,)` but `str((1.0,))` is `(1.0,)`. A driver
 * that returns plain numbers for integer columns (SQLite, mysql2 for INT) must convert them with
 * {@link pyInt}, using the column type to decide. What `mysql.connector` (upstream's driver)
 * returns, per MySQL type: integer types, `YEAR` and `BIT` → `int`; `FLOAT`/`DOUBLE` → `float`;
 * `DECIMAL` → `Decimal` built from the server's text (so `Decimal('510.333333')`); `DATE` →
 * `date`; `DATETIME`/`TIMESTAMP` → naive `datetime`; `TIME` → `timedelta`; text types → `str`;
 * binary/blob types → `bytes` (older connector versions: `bytearray`); `NULL` and zero dates
 * (`0000-00-00`) → `None`. `SET` columns (a Python `set`, whose order depends on string hashing)
 * and time-zone aware values have no form here.
 *
 * ## Fidelity
 *
 * Everything is exact for CPython 3 except one documented approximation: whether a non-ASCII
 * character is "printable" (kept as is in a string repr rather than escaped as `\xNN`, `\uNNNN` or
 * `\UNNNNNNNN`) follows the Unicode general category as known to the JavaScript engine (Node 20:
 * Unicode 15 or later), while each CPython release has its own Unicode version (3.11: 14.0). The two
 * differ only on characters assigned after the older version, which Python escapes and we keep.
 * Lone UTF-16 surrogates are escaped like Python's lone surrogate code points (`\ud800`).
 */

import { PyBytes, pyBytesRepr } from './python-bytes.js';
import { PyDate, PyDateTime, PyTime, timeArgs } from './python-datetime.js';
import { PyDecimal } from './python-decimal.js';
import { pyFloatRepr } from './python-float.js';
import { pyStrRepr } from './python-str.js';
import { PyTimedelta } from './python-timedelta.js';
import { PyTuple } from './python-tuple.js';
import type { PyValue } from './python-value.js';

export { PyBytes, pyBytesRepr } from './python-bytes.js';
export { PyDate, PyDateTime, PyTime } from './python-datetime.js';
export { PyDecimal } from './python-decimal.js';
export { pyFloatRepr } from './python-float.js';
export { pyInt } from './python-int.js';
export { pyStrRepr } from './python-str.js';
export { PyTimedelta } from './python-timedelta.js';
export { PyTuple } from './python-tuple.js';
export type { PyValue } from './python-value.js';

function tupleRepr(items: readonly PyValue[]): string {
  if (items.length === 1) return `(${pyRepr(items[0] as PyValue)},)`;
  return `(${items.map(pyRepr).join(', ')})`;
}

/** Python's `repr(value)`. */
export function pyRepr(value: PyValue): string {
  if (value === null) return 'None';
  switch (typeof value) {
    case 'boolean':
      return value ? 'True' : 'False';
    case 'bigint':
      return value.toString();
    case 'number':
      return pyFloatRepr(value);
    case 'string':
      return pyStrRepr(value);
  }
  if (value instanceof PyDecimal) return `Decimal('${value.canonical}')`;
  if (value instanceof PyDateTime) {
    const { year, month, day, hour, minute, second, microsecond } = value;
    const args = [year, month, day, ...timeArgs(hour, minute, second, microsecond)];
    return `datetime.datetime(${args.join(', ')})`;
  }
  if (value instanceof PyDate) return `datetime.date(${value.year}, ${value.month}, ${value.day})`;
  if (value instanceof PyTime) {
    return `datetime.time(${timeArgs(value.hour, value.minute, value.second, value.microsecond).join(', ')})`;
  }
  if (value instanceof PyTimedelta) {
    const args: string[] = [];
    if (value.days !== 0) args.push(`days=${value.days}`);
    if (value.seconds !== 0) args.push(`seconds=${value.seconds}`);
    if (value.microseconds !== 0) args.push(`microseconds=${value.microseconds}`);
    return `datetime.timedelta(${args.length === 0 ? '0' : args.join(', ')})`;
  }
  if (value instanceof PyBytes) return pyBytesRepr(value.bytes, value.mutable);
  if (value instanceof PyTuple) return tupleRepr(value.items);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  throw new TypeError(`not a PyValue: ${String(value)}`);
}

/**
 * Python's `str(value)`: the text itself for a `str`, the canonical number for a `Decimal`, ISO
 * text for dates and times (`2010-01-01 00:00:00`), `H:MM:SS` for a `timedelta`, and `repr` for
 * everything else (containers render their items with `repr`).
 */
export function pyStr(value: PyValue): string {
  if (
    typeof value === 'string' ||
    value instanceof PyDecimal ||
    value instanceof PyDate ||
    value instanceof PyDateTime ||
    value instanceof PyTime ||
    value instanceof PyTimedelta
  ) {
    return value.toString();
  }
  return pyRepr(value);
}

/**
 * `str(row)` of a result row, i.e. the repr of the tuple of its values: `(3, 'Bob')`, `('x',)`,
 * `()`. This is the identity the SQL reward compares rows by.
 */
export function pyRowStr(row: readonly PyValue[] | PyTuple): string {
  return tupleRepr(row instanceof PyTuple ? row.items : row);
}

/** `str(row)` of every row, in order. */
export function pyRowStrs(rows: readonly (readonly PyValue[] | PyTuple)[]): string[] {
  return rows.map(pyRowStr);
}
