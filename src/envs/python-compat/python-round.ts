/**
 * Python's `round(x, ndigits)` for floats, reproduced exactly.
 *
 * Python rounds the *exact* binary value of the double to `ndigits` decimal places, ties going to
 * the even last digit, and then returns the double nearest to that decimal. So `round(0.625, 2)` is
 * `0.62` (0.625 is exact and the tie goes even), while `round(2.675, 2)` is `2.67` (the double
 * nearest 2.675 is slightly below it) and `round(0.165, 2)` is `0.17` (slightly above).
 * `Math.round(x * 100) / 100` gets several of these wrong, so the reward code must use this.
 *
 * The computation is exact: the double is split into an integer mantissa and a power of two, the
 * scaled value is a ratio of two BigInts, and the final conversion back to a double is correctly
 * rounded (ties to even) by hand rather than through a decimal string.
 */

const TWO_52 = 1n << 52n;
const TWO_53 = 1n << 53n;

/** Beyond this many digits every finite double is already exactly representable: returned as is. */
const MAX_USEFUL_DIGITS = 1100;
/** Below this (negative) digit count every finite double rounds to a signed zero. */
const MIN_USEFUL_DIGITS = -400;

/** Splits a finite, non-zero |x| into `mantissa * 2 ** exponent` with an integer mantissa. */
function decompose(abs: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, abs);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & (TWO_52 - 1n);
  if (biased === 0) return { mantissa: fraction, exponent: -1074 };
  return { mantissa: fraction | TWO_52, exponent: biased - 1075 };
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** `q = num / den` rounded to the nearest integer, ties to even. */
function divideHalfEven(num: bigint, den: bigint): bigint {
  const q = num / den;
  const twiceRemainder = 2n * (num - q * den);
  if (twiceRemainder > den || (twiceRemainder === den && (q & 1n) === 1n)) return q + 1n;
  return q;
}

/** The double nearest to the positive rational `num / den` (ties to even). Throws on overflow. */
function ratioToDouble(num: bigint, den: bigint): number {
  if (num === 0n) return 0;
  // Pick e so that num / (den * 2^e) lies in [2^52, 2^53), clamped to the subnormal exponent.
  let exponent = bitLength(num) - bitLength(den) - 53;
  const scaledQuotient = (e: number) => (e >= 0 ? num / (den << BigInt(e)) : (num << BigInt(-e)) / den);
  while (scaledQuotient(exponent) >= TWO_53) exponent += 1;
  while (exponent > -1074 && scaledQuotient(exponent) < TWO_52) exponent -= 1;
  if (exponent < -1074) exponent = -1074;
  let q =
    exponent >= 0
      ? divideHalfEven(num, den << BigInt(exponent))
      : divideHalfEven(num << BigInt(-exponent), den);
  if (q === TWO_53) {
    q = TWO_52;
    exponent += 1;
  }
  let bits: bigint;
  if (q >= TWO_52) {
    const biased = exponent + 1075;
    if (biased >= 0x7ff) throw new RangeError('rounded value too large to represent');
    bits = (BigInt(biased) << 52n) | (q - TWO_52);
  } else {
    bits = q; // subnormal: exponent is -1074 and the biased exponent field is 0
  }
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, bits);
  return view.getFloat64(0);
}

/**
 * `round(x, digits)` exactly as Python 3 computes it for a float `x` and an int `digits`
 * (negative digits round to tens, hundreds, ...). NaN and infinities are returned unchanged, the
 * sign of zero results is kept (`round(-0.001, 2)` is `-0.0`). Throws a `RangeError` where Python
 * raises `OverflowError` (e.g. `round(1.7976931348623157e308, -308)`), and a `TypeError` for a
 * non-integer `digits`.
 */
export function pythonRound(x: number, digits = 0): number {
  if (!Number.isInteger(digits)) throw new TypeError(`digits must be an integer, got ${digits}`);
  if (!Number.isFinite(x) || x === 0) return x;
  if (digits >= MAX_USEFUL_DIGITS) return x;
  const negative = x < 0;
  const signed = (v: number) => (negative ? -v : v);
  if (digits <= MIN_USEFUL_DIGITS) return signed(0);

  const { mantissa, exponent } = decompose(Math.abs(x));
  // x * 10^digits is already an integer: nothing to round.
  if (exponent >= 0 && digits >= 0) return x;
  if (digits >= 0 && exponent + digits >= 0) return x;

  // |x| * 10^digits as num / den.
  let num = mantissa;
  let den = 1n;
  if (exponent >= 0) num <<= BigInt(exponent);
  else den <<= BigInt(-exponent);
  const power = 10n ** BigInt(Math.abs(digits));
  if (digits >= 0) num *= power;
  else den *= power;

  const rounded = divideHalfEven(num, den);
  const result = digits >= 0 ? ratioToDouble(rounded, power) : ratioToDouble(rounded * power, 1n);
  return signed(result);
}
