import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  PyBytes,
  PyDate,
  PyDateTime,
  PyDecimal,
  PyTime,
  PyTimedelta,
  PyTuple,
  type PyValue,
  pyFloatRepr,
  pyInt,
  pyRepr,
  pyRowStr,
  pyRowStrs,
  pyStr,
  pyStrRepr,
} from '../../../src/envs/python-compat/python-repr.js';
import { parsePythonLiteral } from '../sql/reward/logged-observations.js';

type Encoded = [string, ...unknown[]];

/** [encoded value, repr, str] from /usr/bin/python3 (test/fixtures/generate-python-repr-fixtures.py). */
const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/python-repr-cases.json', import.meta.url), 'utf8'),
) as { meta: { python: string; unicode: string; count: number }; cases: [Encoded, string, string][] };

function floatFromHex(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

const bytesFromHex = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (b) => Number.parseInt(b, 16));

function decode(encoded: Encoded): PyValue {
  const [tag, ...args] = encoded;
  const n = (i: number) => args[i] as number;
  switch (tag) {
    case 'none':
      return null;
    case 'bool':
      return args[0] as boolean;
    case 'int':
      return BigInt(args[0] as string);
    case 'float':
      return floatFromHex(args[0] as string);
    case 'str':
      return args[0] as string;
    case 'bytes':
      return new PyBytes(bytesFromHex(args[0] as string));
    case 'bytearray':
      return new PyBytes(bytesFromHex(args[0] as string), true);
    case 'decimal':
      return new PyDecimal(args[0] as string);
    case 'date':
      return new PyDate(n(0), n(1), n(2));
    case 'datetime':
      return new PyDateTime(n(0), n(1), n(2), n(3), n(4), n(5), n(6));
    case 'time':
      return new PyTime(n(0), n(1), n(2), n(3));
    case 'timedelta':
      return new PyTimedelta(n(0), n(1), n(2));
    case 'tuple':
      return new PyTuple((args[0] as Encoded[]).map(decode));
    case 'list':
      return (args[0] as Encoded[]).map(decode);
    default:
      throw new Error(`unknown tag ${tag}`);
  }
}

describe('pyFloatRepr', () => {
  it('prints floats like Python repr', () => {
    expect(pyFloatRepr(1)).toBe('1.0');
    expect(pyFloatRepr(0.1)).toBe('0.1');
    expect(pyFloatRepr(1e-5)).toBe('1e-05');
    expect(pyFloatRepr(1e-4)).toBe('0.0001');
    expect(pyFloatRepr(1e16)).toBe('1e+16');
    expect(pyFloatRepr(1e15)).toBe('1000000000000000.0');
    expect(pyFloatRepr(1.5e16)).toBe('1.5e+16');
    expect(pyFloatRepr(1e22)).toBe('1e+22');
    expect(pyFloatRepr(1.5e300)).toBe('1.5e+300');
    expect(pyFloatRepr(5e-324)).toBe('5e-324');
    expect(pyFloatRepr(-0)).toBe('-0.0');
    expect(pyFloatRepr(-2.5)).toBe('-2.5');
    expect(pyFloatRepr(Number.POSITIVE_INFINITY)).toBe('inf');
    expect(pyFloatRepr(Number.NEGATIVE_INFINITY)).toBe('-inf');
    expect(pyFloatRepr(Number.NaN)).toBe('nan');
    expect(pyFloatRepr(510.333333)).toBe('510.333333');
    expect(pyFloatRepr(0.1 + 0.2)).toBe('0.30000000000000004');
  });
});

describe('pyStrRepr', () => {
  it('chooses quotes like Python', () => {
    expect(pyStrRepr('Bob')).toBe("'Bob'");
    expect(pyStrRepr("it's")).toBe(`"it's"`);
    expect(pyStrRepr('say "hi"')).toBe(`'say "hi"'`);
    expect(pyStrRepr(`both ' and "`)).toBe(`'both \\' and "'`);
    expect(pyStrRepr('')).toBe("''");
  });

  it('escapes backslashes, controls and non-printable characters', () => {
    expect(pyStrRepr('a\\b')).toBe("'a\\\\b'");
    expect(pyStrRepr('a\nb\tc\rd')).toBe("'a\\nb\\tc\\rd'");
    expect(pyStrRepr('\x00\x1b\x7f')).toBe("'\\x00\\x1b\\x7f'");
    expect(pyStrRepr('\x85\xa0\xad')).toBe("'\\x85\\xa0\\xad'");
    expect(pyStrRepr('\u2028\u200b\ufeff')).toBe("'\\u2028\\u200b\\ufeff'");
    expect(pyStrRepr('\ue000\u{f0000}')).toBe("'\\ue000\\U000f0000'");
    expect(pyStrRepr('\ud800')).toBe("'\\ud800'"); // a lone surrogate
  });

  it('quotes every printable ASCII character as itself, beside either quote', () => {
    for (let code = 0x20; code < 0x7f; code += 1) {
      const c = String.fromCharCode(code);
      if (c === '\\' || c === "'" || c === '"') continue;
      expect(pyStrRepr(`a${c}b`)).toBe(`'a${c}b'`);
      expect(pyStrRepr(`'${c}`)).toBe(`"'${c}"`);
      expect(pyStrRepr(`"${c}`)).toBe(`'"${c}'`);
      expect(pyStrRepr(`'"${c}\\`)).toBe(`'\\'"${c}\\\\'`);
    }
  });

  it('keeps printable non-ASCII text', () => {
    expect(pyStrRepr('Séti')).toBe("'Séti'");
    expect(pyStrRepr('Xi´an')).toBe("'Xi´an'");
    expect(pyStrRepr('日本語 😀')).toBe("'日本語 😀'");
  });
});

describe('Decimal, dates and times', () => {
  it('renders Decimal with its canonical text', () => {
    expect(pyRepr(new PyDecimal('1.50'))).toBe("Decimal('1.50')");
    expect(pyRepr(new PyDecimal('+007.0'))).toBe("Decimal('7.0')");
    expect(pyRepr(new PyDecimal('1e3'))).toBe("Decimal('1E+3')");
    expect(pyRepr(new PyDecimal('0.0000001'))).toBe("Decimal('1E-7')");
    expect(pyRepr(new PyDecimal('0.000001'))).toBe("Decimal('0.000001')");
    expect(pyRepr(new PyDecimal('-0.00'))).toBe("Decimal('-0.00')");
    expect(pyStr(new PyDecimal('510.333333'))).toBe('510.333333');
    expect(() => new PyDecimal('1.2.3')).toThrow(SyntaxError);
    expect(() => new PyDecimal('')).toThrow(SyntaxError);
  });

  it('drops zero seconds and microseconds from datetime and time reprs', () => {
    expect(pyRepr(new PyDateTime(2010, 1, 1))).toBe('datetime.datetime(2010, 1, 1, 0, 0)');
    expect(pyRepr(new PyDateTime(2010, 1, 1, 0, 0, 5))).toBe('datetime.datetime(2010, 1, 1, 0, 0, 5)');
    expect(pyRepr(new PyDateTime(2010, 1, 1, 0, 0, 0, 5))).toBe('datetime.datetime(2010, 1, 1, 0, 0, 0, 5)');
    expect(pyRepr(new PyDate(2010, 1, 1))).toBe('datetime.date(2010, 1, 1)');
    expect(pyRepr(new PyTime(12, 30))).toBe('datetime.time(12, 30)');
    expect(pyStr(new PyDateTime(2010, 1, 1, 13, 45, 0, 120000))).toBe('2010-01-01 13:45:00.120000');
    expect(PyDateTime.fromIso('2010-01-01 13:45:07.12')).toEqual(
      new PyDateTime(2010, 1, 1, 13, 45, 7, 120000),
    );
    expect(PyDateTime.fromIso('2010-01-01')).toEqual(new PyDateTime(2010, 1, 1));
    expect(PyDate.fromIso('2000-02-29')).toEqual(new PyDate(2000, 2, 29));
    expect(() => new PyDate(2001, 2, 29)).toThrow(RangeError);
    expect(() => new PyDateTime(2001, 1, 1, 24)).toThrow(RangeError);
  });

  it('normalises and renders timedelta like Python', () => {
    expect(pyRepr(new PyTimedelta())).toBe('datetime.timedelta(0)');
    expect(pyRepr(new PyTimedelta(0, 5))).toBe('datetime.timedelta(seconds=5)');
    expect(pyRepr(new PyTimedelta(0, -1))).toBe('datetime.timedelta(days=-1, seconds=86399)');
    expect(pyStr(new PyTimedelta(0, -1))).toBe('-1 day, 23:59:59');
    expect(pyRepr(PyTimedelta.fromMysqlTime('-01:30:00'))).toBe('datetime.timedelta(days=-1, seconds=81000)');
    expect(pyRepr(PyTimedelta.fromMysqlTime('838:59:59.5'))).toBe(
      'datetime.timedelta(days=34, seconds=82799, microseconds=500000)',
    );
  });
});

describe('rows', () => {
  it('renders rows as tuples, with the 1-tuple comma', () => {
    expect(pyRowStr([3n, 'Bob'])).toBe("(3, 'Bob')");
    expect(pyRowStr(['x'])).toBe("('x',)");
    expect(pyRowStr([])).toBe('()');
    expect(pyRowStr([null, true, 1.0, new PyDecimal('1.5')])).toBe("(None, True, 1.0, Decimal('1.5'))");
    expect(pyRowStr(new PyTuple([1n]))).toBe('(1,)');
    expect(pyRowStrs([[1n], [2.5]])).toEqual(['(1,)', '(2.5,)']);
    expect(pyRepr([new PyTuple([1n, 'a']), new PyTuple([])])).toBe("[(1, 'a'), ()]");
    // CPython quirk: bytearray escapes ' even inside double quotes.
    expect(pyRepr(new PyBytes(Uint8Array.of(0, 0x61, 0x27), true))).toBe('bytearray(b"\\x00a\\\'")');
    expect(pyRepr(new PyBytes(Uint8Array.of(0, 0x61, 0x27)))).toBe('b"\\x00a\'"');
  });

  it('tells int from float by type: bigint is int, number is float', () => {
    expect(pyRowStr([1n])).toBe('(1,)');
    expect(pyRowStr([1])).toBe('(1.0,)');
    expect(pyInt(3)).toBe(3n);
    expect(pyInt(' -12 ')).toBe(-12n);
    expect(() => pyInt(1.5)).toThrow(TypeError);
    expect(() => pyInt('1.0')).toThrow(TypeError);
  });
});

describe(`Python ${fixture.meta.python} (Unicode ${fixture.meta.unicode}) fixture`, () => {
  const cases = fixture.cases.map(([encoded, repr, str]) => ({ encoded, repr, str, value: decode(encoded) }));

  it(`repr matches on all ${fixture.cases.length} cases`, () => {
    expect(cases.length).toBe(fixture.meta.count);
    expect(cases.length).toBeGreaterThan(5000);
    const mismatches = cases
      .map(({ encoded, repr, value }) => ({ encoded, want: repr, got: pyRepr(value) }))
      .filter(({ want, got }) => want !== got);
    expect(mismatches).toEqual([]);
  });

  it(`str matches on all ${fixture.cases.length} cases`, () => {
    const mismatches = cases
      .map(({ encoded, str, value }) => ({ encoded, want: str, got: pyStr(value) }))
      .filter(({ want, got }) => want !== got);
    expect(mismatches).toEqual([]);
  });

  it('reads back every repr with the test literal parser (round trip)', () => {
    const mismatches = cases
      .filter(({ repr }) => repr !== 'nan' && repr !== "Decimal('sNaN')")
      .map(({ repr }) => ({ repr, again: pyRepr(parsePythonLiteral(repr)) }))
      .filter(({ repr, again }) => repr !== again);
    expect(mismatches).toEqual([]);
  });
});
