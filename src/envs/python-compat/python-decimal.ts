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
