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

/** A value as Python sees it; see the module documentation for the mapping of each type. */
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

/** A Python `int` from a JS number (must be an integer), a bigint, or a decimal integer string. */
export function pyInt(value: number | bigint | string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new TypeError(`not an integer: ${value}`);
    return BigInt(value);
  }
  const text = value.trim();
  if (!/^[+-]?\d+$/.test(text)) throw new TypeError(`not an integer: ${JSON.stringify(value)}`);
  return BigInt(text);
}

// ---------------------------------------------------------------------------------------------
// Decimal

/**
 * A Python `decimal.Decimal`, kept as the text it was built from (as `mysql.connector` builds it
 * from the server's text). Its `repr` is `Decimal('<str>')` where `str` is Python's canonical
 * string: `Decimal('1.50')` stays `1.50`, but `+007.0` becomes `7.0`, `1e3` becomes `1E+3` and
 * `0.0000001` becomes `1E-7`. The constructor throws a `SyntaxError` for text Python rejects.
 */
export class PyDecimal {
  /** The canonical Python `str()` of the number. */
  readonly canonical: string;

  constructor(readonly text: string) {
    this.canonical = decimalToString(text);
  }

  toString(): string {
    return this.canonical;
  }
}

const DECIMAL_PATTERN =
  /^([+-])?(?:(?:(\d(?:_?\d)*)?(?:\.(\d(?:_?\d)*)?)?(?:[eE]([+-]?\d(?:_?\d)*))?)|(inf(?:inity)?)|(s?nan)(\d(?:_?\d)*)?)$/i;

/** Python's `str(Decimal(text))` (the context-free to-scientific-string conversion). */
function decimalToString(text: string): string {
  const match = DECIMAL_PATTERN.exec(text.trim());
  if (!match) throw new SyntaxError(`invalid Decimal literal: ${JSON.stringify(text)}`);
  const [, signText, intDigits, fracDigits, expText, infinity, nan, payload] = match;
  const sign = signText === '-' ? '-' : '';
  if (infinity !== undefined) return `${sign}Infinity`;
  if (nan !== undefined) {
    const digits = (payload ?? '').replaceAll('_', '').replace(/^0+/, '');
    return `${sign}${nan.length === 4 ? 'sNaN' : 'NaN'}${digits}`;
  }
  const whole = (intDigits ?? '').replaceAll('_', '');
  const fraction = (fracDigits ?? '').replaceAll('_', '');
  if (whole === '' && fraction === '')
    throw new SyntaxError(`invalid Decimal literal: ${JSON.stringify(text)}`);
  const coefficient = `${whole}${fraction}`.replace(/^0+/, '') || '0';
  const exponent = (expText === undefined ? 0 : Number(expText.replaceAll('_', ''))) - fraction.length;
  const leftDigits = exponent + coefficient.length;
  const dotPlace = exponent <= 0 && leftDigits > -6 ? leftDigits : 1;
  let intPart: string;
  let fracPart: string;
  if (dotPlace <= 0) {
    intPart = '0';
    fracPart = `.${'0'.repeat(-dotPlace)}${coefficient}`;
  } else if (dotPlace >= coefficient.length) {
    intPart = coefficient + '0'.repeat(dotPlace - coefficient.length);
    fracPart = '';
  } else {
    intPart = coefficient.slice(0, dotPlace);
    fracPart = `.${coefficient.slice(dotPlace)}`;
  }
  const shift = leftDigits - dotPlace;
  const exp = shift === 0 ? '' : `E${shift > 0 ? '+' : '-'}${Math.abs(shift)}`;
  return `${sign}${intPart}${fracPart}${exp}`;
}

// ---------------------------------------------------------------------------------------------
// Dates and times

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function checkInt(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value)) throw new TypeError(`${name} must be an integer, got ${value}`);
  if (value < min || value > max) throw new RangeError(`${name} must be in ${min}..${max}, got ${value}`);
}

function checkDate(year: number, month: number, day: number): void {
  checkInt('year', year, 1, 9999);
  checkInt('month', month, 1, 12);
  const days = month === 2 && isLeap(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 31);
  checkInt('day', day, 1, days);
}

function checkTime(hour: number, minute: number, second: number, microsecond: number): void {
  checkInt('hour', hour, 0, 23);
  checkInt('minute', minute, 0, 59);
  checkInt('second', second, 0, 59);
  checkInt('microsecond', microsecond, 0, 999_999);
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** Python's argument list of a time-of-day: hour and minute always, then second and microsecond unless zero. */
function timeArgs(hour: number, minute: number, second: number, microsecond: number): number[] {
  const args = [hour, minute, second, microsecond];
  if (args.at(-1) === 0) args.pop();
  if (args.at(-1) === 0) args.pop();
  return args;
}

function isoTime(hour: number, minute: number, second: number, microsecond: number): string {
  const base = `${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}`;
  return microsecond === 0 ? base : `${base}.${pad(microsecond, 6)}`;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;

function fractionToMicroseconds(fraction: string | undefined): number {
  return fraction === undefined ? 0 : Number(fraction.padEnd(6, '0'));
}

/** A Python `datetime.date`. The constructor validates like Python (`ValueError` → `RangeError`). */
export class PyDate {
  constructor(
    readonly year: number,
    readonly month: number,
    readonly day: number,
  ) {
    checkDate(year, month, day);
  }

  /** From `YYYY-MM-DD` (how SQL engines print a DATE). */
  static fromIso(text: string): PyDate {
    const m = ISO_DATE.exec(text.trim());
    if (!m) throw new SyntaxError(`not a date: ${JSON.stringify(text)}`);
    return new PyDate(Number(m[1]), Number(m[2]), Number(m[3]));
  }

  /** Python's `str()`: `2010-01-01`. */
  toString(): string {
    return `${pad(this.year, 4)}-${pad(this.month, 2)}-${pad(this.day, 2)}`;
  }
}

/** A naive Python `datetime.datetime`. */
export class PyDateTime {
  constructor(
    readonly year: number,
    readonly month: number,
    readonly day: number,
    readonly hour = 0,
    readonly minute = 0,
    readonly second = 0,
    readonly microsecond = 0,
  ) {
    checkDate(year, month, day);
    checkTime(hour, minute, second, microsecond);
  }

  /** From `YYYY-MM-DD HH:MM:SS[.ffffff]` (or with `T`), or a bare date (midnight). */
  static fromIso(text: string): PyDateTime {
    const trimmed = text.trim();
    const [datePart = '', timePart] = trimmed.split(/[ T]/, 2);
    const date = PyDate.fromIso(datePart);
    if (timePart === undefined) return new PyDateTime(date.year, date.month, date.day);
    const t = ISO_TIME.exec(timePart);
    if (!t || trimmed.length !== datePart.length + 1 + timePart.length)
      throw new SyntaxError(`not a datetime: ${JSON.stringify(text)}`);
    return new PyDateTime(
      date.year,
      date.month,
      date.day,
      Number(t[1]),
      Number(t[2]),
      Number(t[3]),
      fractionToMicroseconds(t[4]),
    );
  }

  /** Python's `str()`: `2010-01-01 00:00:00` (with `.ffffff` when there are microseconds). */
  toString(): string {
    const date = new PyDate(this.year, this.month, this.day).toString();
    return `${date} ${isoTime(this.hour, this.minute, this.second, this.microsecond)}`;
  }
}

/** A naive Python `datetime.time`. */
export class PyTime {
  constructor(
    readonly hour = 0,
    readonly minute = 0,
    readonly second = 0,
    readonly microsecond = 0,
  ) {
    checkTime(hour, minute, second, microsecond);
  }

  /** Python's `str()`: `12:30:00` (with `.ffffff` when there are microseconds). */
  toString(): string {
    return isoTime(this.hour, this.minute, this.second, this.microsecond);
  }
}

const MICROS_PER_SECOND = 1_000_000n;
const MICROS_PER_DAY = 86_400n * MICROS_PER_SECOND;
const MAX_DAYS = 999_999_999;

/** Floor division and modulo of bigints (Python's `divmod`). */
function divmod(a: bigint, b: bigint): [bigint, bigint] {
  let q = a / b;
  let r = a % b;
  if (r !== 0n && r < 0n !== b < 0n) {
    q -= 1n;
    r += b;
  }
  return [q, r];
}

/**
 * A Python `datetime.timedelta` (what `mysql.connector` returns for a MySQL `TIME`). The parts are
 * normalised like Python's: `days` carries the sign, `0 <= seconds < 86400`,
 * `0 <= microseconds < 1000000`; e.g. `new PyTimedelta(0, -1)` is `days=-1, seconds=86399`.
 */
export class PyTimedelta {
  readonly days: number;
  readonly seconds: number;
  readonly microseconds: number;

  constructor(days: number | bigint = 0, seconds: number | bigint = 0, microseconds: number | bigint = 0) {
    const total = pyInt(days) * MICROS_PER_DAY + pyInt(seconds) * MICROS_PER_SECOND + pyInt(microseconds);
    const [d, rest] = divmod(total, MICROS_PER_DAY);
    const [s, us] = divmod(rest, MICROS_PER_SECOND);
    if (d > BigInt(MAX_DAYS) || d < BigInt(-MAX_DAYS))
      throw new RangeError(`days=${d}; must have magnitude <= ${MAX_DAYS}`);
    this.days = Number(d);
    this.seconds = Number(s);
    this.microseconds = Number(us);
  }

  /** From MySQL's TIME text `[-]H…H:MM:SS[.ffffff]` (the sign applies to the whole duration). */
  static fromMysqlTime(text: string): PyTimedelta {
    const m = /^(-)?(\d+):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/.exec(text.trim());
    if (!m) throw new SyntaxError(`not a MySQL TIME: ${JSON.stringify(text)}`);
    const seconds = BigInt(m[2] ?? '0') * 3600n + BigInt(m[3] ?? '0') * 60n + BigInt(m[4] ?? '0');
    const micros = seconds * MICROS_PER_SECOND + BigInt(fractionToMicroseconds(m[5]));
    return new PyTimedelta(0, 0, m[1] === '-' ? -micros : micros);
  }

  /** Python's `str()`: `0:00:05`, `1 day, 2:03:04.000005`, `-1 day, 23:59:59`. */
  toString(): string {
    const minutes = Math.floor(this.seconds / 60);
    const clock = `${Math.floor(minutes / 60)}:${pad(minutes % 60, 2)}:${pad(this.seconds % 60, 2)}`;
    const days = this.days === 0 ? '' : `${this.days} day${Math.abs(this.days) === 1 ? '' : 's'}, `;
    const micros = this.microseconds === 0 ? '' : `.${pad(this.microseconds, 6)}`;
    return `${days}${clock}${micros}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Bytes and containers

/** A Python `bytes` (or, with `mutable`, a `bytearray`, as older `mysql.connector` versions return). */
export class PyBytes {
  constructor(
    readonly bytes: Uint8Array,
    readonly mutable = false,
  ) {}
}

/** A Python `tuple`. A row handed to {@link pyRowStr} need not be wrapped in one. */
export class PyTuple {
  constructor(readonly items: readonly PyValue[]) {}
}

// ---------------------------------------------------------------------------------------------
// float repr

/**
 * The shortest round-trip digits of a positive finite double (no leading or trailing zeros) and the
 * position of the decimal point: `x = 0.d1d2d3… × 10^decpt`. Taken from `Number.prototype.toString`,
 * which, like Python's `repr`, picks the shortest digit string that reads back as `x` and, among
 * those, the one nearest to `x`.
 */
function shortestDigits(x: number): { digits: string; decpt: number } {
  const text = String(x);
  const e = text.indexOf('e');
  if (e >= 0) {
    const mantissa = text.slice(0, e).replace('.', '');
    return { digits: mantissa, decpt: Number(text.slice(e + 1)) + 1 };
  }
  const point = text.indexOf('.');
  const intPart = point >= 0 ? text.slice(0, point) : text;
  const all = intPart + (point >= 0 ? text.slice(point + 1) : '');
  const leadingZeros = all.length - all.replace(/^0+/, '').length;
  return { digits: all.slice(leadingZeros).replace(/0+$/, ''), decpt: intPart.length - leadingZeros };
}

/**
 * Python's `repr(float)`: the shortest digit string that reads back as the same double (the same
 * digits JavaScript picks), laid out Python's way: positional when the decimal exponent `e`
 * (`d.ddd × 10^e`) is in `-5 < e < 16`, with `.0` added to integers; otherwise `d.ddde±XX` with at
 * least two exponent digits (`1e-05`, `1e+16`, `1.5e+300`). Specials: `inf`, `-inf`, `nan`.
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Number.POSITIVE_INFINITY) return 'inf';
  if (x === Number.NEGATIVE_INFINITY) return '-inf';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  if (x === 0) return `${sign}0.0`;
  const { digits, decpt } = shortestDigits(Math.abs(x));
  const exponent = decpt - 1;
  if (decpt <= -4 || decpt > 16) {
    const rest = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const expSign = exponent < 0 ? '-' : '+';
    return `${sign}${digits[0]}${rest}e${expSign}${pad(Math.abs(exponent), 2)}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

// ---------------------------------------------------------------------------------------------
// str and bytes repr

/**
 * Code points Python's `str.isprintable()` rejects: general categories Cc, Cf, Cs, Co, Cn, Zl, Zp
 * and Zs, except the ASCII space (checked before this is used).
 */
const NON_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');

/** The quote Python picks for a str/bytes repr: `'` unless the text has `'` and no `"`. */
function chooseQuote(hasSingle: boolean, hasDouble: boolean): string {
  return hasSingle && !hasDouble ? '"' : "'";
}

/**
 * Python's `repr(str)`: quoted (see the module comment for the quote choice), with `\\`, the quote,
 * `\t`, `\n`, `\r` escaped; other ASCII control characters and DEL as `\xNN`; non-ASCII characters
 * kept when printable and otherwise escaped as `\xNN` (up to U+00FF), `\uNNNN` or `\UNNNNNNNN`.
 */
export function pyStrRepr(text: string): string {
  const quote = chooseQuote(text.includes("'"), text.includes('"'));
  let out = quote;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f) out += ch;
    else if (!NON_PRINTABLE.test(ch)) out += ch;
    else if (cp <= 0xff) out += `\\x${hex(cp, 2)}`;
    else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + quote;
}

/**
 * Python's `repr(bytes)`: `b'...'` with printable ASCII kept and everything else escaped. With
 * `mutable`, `repr(bytearray)`: `bytearray(b'...')`, where CPython escapes `'` even inside double
 * quotes (`bytearray(b"it\\'s")`).
 */
export function pyBytesRepr(bytes: Uint8Array, mutable = false): string {
  const quote = chooseQuote(bytes.includes(0x27), bytes.includes(0x22));
  const escaped = mutable ? "'" : quote;
  let out = `b${quote}`;
  for (const byte of bytes) {
    const ch = String.fromCharCode(byte);
    if (ch === escaped || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (byte < 0x20 || byte >= 0x7f) out += `\\x${hex(byte, 2)}`;
    else out += ch;
  }
  out += quote;
  return mutable ? `bytearray(${out})` : out;
}

// ---------------------------------------------------------------------------------------------
// repr / str of any value

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
