/**
 * Test helpers that read the SQL observations InterCode logged back into Python values:
 * - {@link parsePythonLiteral} reads Python's repr text (`str(result)`, e.g.
 *   `[(14, 'Rachelle', Decimal('3.50'), datetime.datetime(2010, 1, 1, 0, 0))]`), as stored in most
 *   `info.agent_obs` / `info.eval_obs` fields and in every `turn_history.observations`;
 * - {@link parseJsonLossless} reads JSON keeping each number's text, because the result lists that
 *   were logged as JSON arrays need `68.0` (a Python float, printed `68.0`) kept apart from `68`
 *   (an int), which `JSON.parse` merges; {@link jsonToPy} then maps the tree to Python values.
 */
import {
  PyBytes,
  PyDate,
  PyDateTime,
  PyDecimal,
  PyTime,
  PyTimedelta,
  PyTuple,
  type PyValue,
} from '../../../../src/envs/python-compat/python-repr.js';

// ---------------------------------------------------------------------------------------------
// Python literals

class LiteralParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parseAll(): PyValue {
    const value = this.value();
    this.skipSpace();
    if (this.pos !== this.text.length) this.fail('trailing text');
    return value;
  }

  private fail(message: string): never {
    throw new SyntaxError(
      `${message} at ${this.pos}: ${JSON.stringify(this.text.slice(this.pos, this.pos + 40))}`,
    );
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos] ?? '')) this.pos += 1;
  }

  private eat(token: string): boolean {
    this.skipSpace();
    if (this.text.startsWith(token, this.pos)) {
      this.pos += token.length;
      return true;
    }
    return false;
  }

  private expect(token: string): void {
    if (!this.eat(token)) this.fail(`expected ${JSON.stringify(token)}`);
  }

  /** Comma-separated values up to `close`; also says whether a trailing comma was present. */
  private sequence(close: string): { items: PyValue[]; trailingComma: boolean } {
    const items: PyValue[] = [];
    let trailingComma = false;
    while (!this.eat(close)) {
      items.push(this.value());
      trailingComma = this.eat(',');
      if (!trailingComma) {
        this.expect(close);
        break;
      }
    }
    return { items, trailingComma };
  }

  private integerArgs(close = ')'): number[] {
    return this.sequence(close).items.map((v) => {
      if (typeof v !== 'bigint') this.fail('expected an integer argument');
      return Number(v);
    });
  }

  private value(): PyValue {
    this.skipSpace();
    const rest = this.text.slice(this.pos, this.pos + 40);
    if (this.eat('[')) return this.sequence(']').items;
    if (this.eat('(')) {
      const { items, trailingComma } = this.sequence(')');
      if (items.length === 1 && !trailingComma) return items[0] as PyValue; // parenthesised value
      return new PyTuple(items);
    }
    if (rest.startsWith("'") || rest.startsWith('"')) return this.string(false) as string;
    if (rest.startsWith("b'") || rest.startsWith('b"')) {
      this.pos += 1;
      return new PyBytes(this.string(true) as Uint8Array);
    }
    for (const [word, value] of [
      ['None', null],
      ['True', true],
      ['False', false],
      ['inf', Number.POSITIVE_INFINITY],
      ['nan', Number.NaN],
    ] as const) {
      if (rest.startsWith(word) && !/\w/.test(rest[word.length] ?? '')) {
        this.pos += word.length;
        return value;
      }
    }
    if (this.eat("Decimal('")) {
      const end = this.text.indexOf("'", this.pos);
      if (end < 0) this.fail('unterminated Decimal');
      const decimal = new PyDecimal(this.text.slice(this.pos, end));
      this.pos = end + 1;
      this.expect(')');
      return decimal;
    }
    if (this.eat('bytearray(')) {
      const inner = this.value();
      if (!(inner instanceof PyBytes)) this.fail('expected bytes in bytearray()');
      this.expect(')');
      return new PyBytes(inner.bytes, true);
    }
    if (this.eat('datetime.datetime(')) {
      const [y, mo, d, h, mi, s, us] = this.integerArgs();
      return new PyDateTime(y ?? 0, mo ?? 0, d ?? 0, h, mi, s, us);
    }
    if (this.eat('datetime.date(')) {
      const [y, mo, d] = this.integerArgs();
      return new PyDate(y ?? 0, mo ?? 0, d ?? 0);
    }
    if (this.eat('datetime.time(')) {
      const [h, mi, s, us] = this.integerArgs();
      return new PyTime(h, mi, s, us);
    }
    if (this.eat('datetime.timedelta(')) return this.timedelta();
    const number = /^-?(?:inf\b|\d+(?:\.\d*)?(?:e[+-]?\d+)?)/.exec(this.text.slice(this.pos));
    if (number) {
      this.pos += number[0].length;
      const lexeme = number[0];
      if (lexeme === '-inf') return Number.NEGATIVE_INFINITY;
      return /[.e]/.test(lexeme) ? Number(lexeme) : BigInt(lexeme);
    }
    return this.fail('unexpected text');
  }

  private timedelta(): PyTimedelta {
    const fields: Record<string, number> = { days: 0, seconds: 0, microseconds: 0 };
    if (this.eat('0)')) return new PyTimedelta();
    while (!this.eat(')')) {
      const m = /^\s*(days|seconds|microseconds)=(-?\d+)\s*,?/.exec(this.text.slice(this.pos));
      if (!m) this.fail('bad timedelta argument');
      fields[m[1] as string] = Number(m[2]);
      this.pos += m[0].length;
    }
    return new PyTimedelta(fields.days, fields.seconds, fields.microseconds);
  }

  /** A quoted str (or, with `bytes`, bytes) literal at the current position. */
  private string(bytes: boolean): string | Uint8Array {
    const quote = this.text[this.pos];
    this.pos += 1;
    const units: number[] = []; // code points (str) or byte values (bytes)
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined) this.fail('unterminated string');
      if (ch === quote) {
        this.pos += 1;
        break;
      }
      if (ch !== '\\') {
        const cp = this.text.codePointAt(this.pos) ?? 0;
        if (bytes && cp > 0x7f) this.fail('non-ASCII character in bytes');
        units.push(cp);
        this.pos += cp > 0xffff ? 2 : 1;
        continue;
      }
      const esc = this.text[this.pos + 1] ?? '';
      this.pos += 2;
      const simple: Record<string, number> = {
        '\\': 0x5c,
        "'": 0x27,
        '"': 0x22,
        n: 0x0a,
        t: 0x09,
        r: 0x0d,
        a: 0x07,
        b: 0x08,
        f: 0x0c,
        v: 0x0b,
      };
      const code = simple[esc];
      if (code !== undefined) units.push(code);
      else if (esc === '\n') continue;
      else if (/[0-7]/.test(esc)) {
        const m = /^[0-7]{0,2}/.exec(this.text.slice(this.pos))?.[0] ?? '';
        units.push(Number.parseInt(esc + m, 8));
        this.pos += m.length;
      } else {
        const width = esc === 'x' ? 2 : !bytes && esc === 'u' ? 4 : !bytes && esc === 'U' ? 8 : 0;
        const digits = this.text.slice(this.pos, this.pos + width);
        if (width === 0 || !/^[0-9a-fA-F]+$/.test(digits) || digits.length !== width)
          this.fail(`bad escape \\${esc}`);
        units.push(Number.parseInt(digits, 16));
        this.pos += width;
      }
    }
    if (bytes) return Uint8Array.from(units);
    // Code points to a JS string; lone surrogates stay single units, as in Python.
    return units.map((cp) => (cp > 0xffff ? String.fromCodePoint(cp) : String.fromCharCode(cp))).join('');
  }
}

/** Reads one Python literal as printed by `repr` (the value types of `python-repr.ts`). */
export function parsePythonLiteral(text: string): PyValue {
  return new LiteralParser(text).parseAll();
}

// ---------------------------------------------------------------------------------------------
// Lossless JSON

/** A JSON number, kept as its text. */
export class JsonNumber {
  constructor(readonly text: string) {}

  get value(): number {
    return Number(this.text);
  }
}

export type LosslessJson =
  | null
  | boolean
  | string
  | JsonNumber
  | LosslessJson[]
  | { [key: string]: LosslessJson };

/**
 * `JSON.parse`, except that numbers become {@link JsonNumber}s holding their text. Also accepts
 * the non-standard `NaN`, `Infinity` and `-Infinity` Python's `json` module writes.
 */
export function parseJsonLossless(text: string): LosslessJson {
  let pos = 0;
  const fail = (message: string): never => {
    throw new SyntaxError(`${message} at ${pos}`);
  };
  const space = () => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos] ?? '')) pos += 1;
  };
  const value = (): LosslessJson => {
    space();
    const ch = text[pos];
    if (ch === '{') {
      pos += 1;
      const out: { [key: string]: LosslessJson } = {};
      space();
      if (text[pos] === '}') {
        pos += 1;
        return out;
      }
      for (;;) {
        space();
        const key = value();
        if (typeof key !== 'string') fail('object key must be a string');
        space();
        if (text[pos] !== ':') fail('expected :');
        pos += 1;
        out[key as string] = value();
        space();
        if (text[pos] === ',') pos += 1;
        else if (text[pos] === '}') {
          pos += 1;
          return out;
        } else fail('expected , or }');
      }
    }
    if (ch === '[') {
      pos += 1;
      const out: LosslessJson[] = [];
      space();
      if (text[pos] === ']') {
        pos += 1;
        return out;
      }
      for (;;) {
        out.push(value());
        space();
        if (text[pos] === ',') pos += 1;
        else if (text[pos] === ']') {
          pos += 1;
          return out;
        } else fail('expected , or ]');
      }
    }
    if (ch === '"') {
      let end = pos + 1;
      while (text[end] !== '"') {
        if (end >= text.length) fail('unterminated string');
        end += text[end] === '\\' ? 2 : 1;
      }
      const out = JSON.parse(text.slice(pos, end + 1)) as string;
      pos = end + 1;
      return out;
    }
    for (const [word, result] of [
      ['null', null],
      ['true', true],
      ['false', false],
      ['NaN', new JsonNumber('NaN')],
      ['Infinity', new JsonNumber('Infinity')],
      ['-Infinity', new JsonNumber('-Infinity')],
    ] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return result;
      }
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(pos, pos + 400));
    if (!m) return fail('unexpected character');
    pos += m[0].length;
    return new JsonNumber(m[0]);
  };
  const out = value();
  space();
  if (pos !== text.length) fail('trailing text');
  return out;
}

/**
 * A logged JSON value as the Python value it was dumped from: a number without `.`/exponent was an
 * `int`, any other a `float` (Python's `json` writes floats with their repr, so `68.0` stays
 * `68.0`); arrays stand for the tuples and lists Python's `json` turned into arrays.
 */
export function jsonToPy(value: LosslessJson): PyValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (value instanceof JsonNumber) return /^-?\d+$/.test(value.text) ? BigInt(value.text) : value.value;
  if (Array.isArray(value)) return value.map(jsonToPy);
  throw new TypeError('a JSON object has no Python value here');
}
