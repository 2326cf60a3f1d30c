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
    return `${sign}${digits[0]}${rest}e${expSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}
