import type { PyBytes } from './python-bytes.js';
import type { PyDate, PyDateTime, PyTime } from './python-datetime.js';
import type { PyDecimal } from './python-decimal.js';
import type { PyTimedelta } from './python-timedelta.js';
import type { PyTuple } from './python-tuple.js';

/**
 * A value as Python sees it; `python-repr.ts` documents the mapping of each Python type (a JS
 * `number` is always a `float`, a Python `int` always a `bigint`).
 */
export type PyValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | PyDecimal
  | PyDate
  | PyDateTime
  | PyTime
  | PyTimedelta
  | PyBytes
  | PyTuple
  | readonly PyValue[];
