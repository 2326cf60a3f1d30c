import { fractionToMicroseconds, pad } from './python-datetime.js';
import { pyInt } from './python-int.js';

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
