/** Python's `datetime.date`, `datetime.datetime` and `datetime.time` (naive), validated like Python. */

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

export const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** Python's argument list of a time-of-day: hour and minute always, then second and microsecond unless zero. */
export function timeArgs(hour: number, minute: number, second: number, microsecond: number): number[] {
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

export function fractionToMicroseconds(fraction: string | undefined): number {
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
