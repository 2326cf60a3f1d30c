/**
 * The error function erf(x) = 2/√π ∫₀ˣ e^(−t²) dt in double precision, standing in for Python's
 * `math.erf` (which the Bash reward applies to the number of mismatched files).
 *
 * Method (written for this project):
 * - |x| < 2^-960: 2x/√π, rounded by hand so that subnormal results are correctly rounded too.
 * - |x| < 3: the Maclaurin series 2/√π · Σ (−1)ⁿ x^(2n+1) / (n! (2n+1)), summed in double-double
 *   arithmetic (about 32 significant digits). The alternating terms cancel at most four digits for
 *   |x| < 3, so the result is correctly rounded except in rare near-halfway cases.
 * - 3 ≤ |x| < 6: erf = 1 − erfc, with erfc(x) = e^(−x²)/√π · 1/(x + ½/(x + 1/(x + 3/2/(x + …)))) (Laplace's
 *   continued fraction) evaluated in plain doubles by the modified Lentz method. There erfc < 2.3e-5,
 *   so its few-ulp relative error is far below half an ulp of the result.
 * - |x| ≥ 6: erfc(x) < 2.2e-17, below half an ulp of 1, so erf is ±1.
 *
 * Python's `math.erf` is the platform libm's (glibc: within 1 ulp, not always correctly rounded),
 * so results agree with it bit for bit for nearly all inputs and within one ulp for the rest; at the
 * integers the reward uses they agree exactly (see the tests).
 */

/** 2/√π split as hi + lo (hi is the double nearest to 2/√π). */
const TWO_OVER_SQRT_PI_HI = 1.1283791670955126;
const TWO_OVER_SQRT_PI_LO = 1.533545961316588e-17;
/** 1/√π split as hi + lo. */
const ONE_OVER_SQRT_PI_HI = 0.5641895835477563;
const ONE_OVER_SQRT_PI_LO = 7.66772980658294e-18;

const SERIES_LIMIT = 3;
const SATURATION = 6;
/** Convergence threshold of the continued fraction. */
const EPSILON = 2 ** -56;
/** Lentz's guard against a zero denominator. */
const TINY = 1e-300;

/** An unevaluated sum hi + lo with |lo| ≤ ½ ulp(hi) (double-double). */
type DoubleDouble = readonly [hi: number, lo: number];

/** Splits a double into a high part with 26 significant bits and an exact remainder. */
function split(a: number): [number, number] {
  const c = 134217729 * a; // 2^27 + 1
  const hi = c - (c - a);
  return [hi, a - hi];
}

/** Exact a + b as a double-double (Knuth's two-sum). */
function twoSum(a: number, b: number): DoubleDouble {
  const s = a + b;
  const bb = s - a;
  return [s, a - (s - bb) + (b - bb)];
}

/** Exact a · b as a double-double (Dekker's product; inputs far from overflow). */
function twoProduct(a: number, b: number): DoubleDouble {
  const p = a * b;
  const [ah, al] = split(a);
  const [bh, bl] = split(b);
  return [p, ah * bh - p + ah * bl + al * bh + al * bl];
}

function ddAdd(x: DoubleDouble, y: DoubleDouble): DoubleDouble {
  const [s, e] = twoSum(x[0], y[0]);
  const [t, f] = twoSum(x[1], y[1]);
  const [s2, e2] = twoSum(s, e + t);
  return twoSum(s2, e2 + f);
}

function ddMultiply(x: DoubleDouble, y: DoubleDouble): DoubleDouble {
  const [p, e] = twoProduct(x[0], y[0]);
  return twoSum(p, e + (x[0] * y[1] + x[1] * y[0]));
}

function ddDivide(x: DoubleDouble, d: number): DoubleDouble {
  const q1 = x[0] / d;
  const [p, e] = twoProduct(q1, d);
  const q2 = (x[0] - p - e + x[1]) / d;
  return twoSum(q1, q2);
}

/** Below this, erf(a) = 2a/√π to far below an ulp, and the product needs care near underflow. */
const TINY_LIMIT = 2 ** -960;
const SCALE_UP = 2 ** 106;
const SCALE_DOWN = 2 ** -106;
const MIN_NORMAL = 2 ** -1022;
const SUBNORMAL_STEPS = 2 ** 968; // 2^-1074 (the subnormal spacing) is 2^-968 after scaling by 2^106

/** 2a/√π correctly rounded for tiny a, including a result in the subnormal range. */
function erfTiny(a: number): number {
  const [hi, lo] = ddMultiply([a * SCALE_UP, 0], [TWO_OVER_SQRT_PI_HI, TWO_OVER_SQRT_PI_LO]);
  const down = hi * SCALE_DOWN;
  if (down >= MIN_NORMAL) return down; // exact scaling of the correctly rounded product
  // Round hi + lo to a multiple of the subnormal spacing, ties to even.
  const units = hi * SUBNORMAL_STEPS;
  const whole = Math.floor(units);
  const fraction = units - whole + lo * SUBNORMAL_STEPS;
  let steps = whole;
  if (fraction > 0.5 || (fraction === 0.5 && whole % 2 === 1)) steps += 1;
  return steps * 2 ** -1074;
}

function erfSeries(a: number): number {
  const a2 = twoProduct(a, a);
  let power: DoubleDouble = [a, 0]; // (−1)ⁿ a^(2n+1) / n!
  let sum: DoubleDouble = [a, 0];
  for (let n = 1; n < 400; n++) {
    power = ddDivide(ddMultiply(power, a2), -n);
    const term = ddDivide(power, 2 * n + 1);
    sum = ddAdd(sum, term);
    if (Math.abs(term[0]) <= 1e-34 * Math.abs(sum[0])) break;
  }
  const value = ddMultiply(sum, [TWO_OVER_SQRT_PI_HI, TWO_OVER_SQRT_PI_LO]);
  return value[0] + value[1];
}

/** e^(−a²) without the error of rounding a² first. */
function expMinusSquare(a: number): number {
  const square = a * a;
  const [ah, al] = split(a);
  const error = ah * ah - square + 2 * ah * al + al * al; // a² = square + error exactly (to rounding)
  return Math.exp(-square) * (1 - error);
}

/** erfc(a) for 3 ≤ a < 6 via Laplace's continued fraction (few terms needed there). */
function erfcContinuedFraction(a: number): number {
  // erfc(a) = e^(−a²)/√π · 1 / (a + k₁/(a + k₂/(a + …))), k_n = n/2. Modified Lentz.
  let f = a;
  let c = a;
  let d = 0;
  for (let n = 1; n < 5000; n++) {
    const k = n / 2;
    d = a + k * d;
    if (d === 0) d = TINY;
    c = a + k / c;
    if (c === 0) c = TINY;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) <= EPSILON) break;
  }
  const scale = expMinusSquare(a);
  return (scale * ONE_OVER_SQRT_PI_HI + scale * ONE_OVER_SQRT_PI_LO) / f;
}

/** The error function, to double precision; `erf(-x) === -erf(x)`, `erf(±∞) = ±1`, NaN stays NaN. */
export function erf(x: number): number {
  if (Number.isNaN(x)) return x;
  if (x === 0) return x; // keeps the sign of zero
  const a = Math.abs(x);
  let value: number;
  if (a < TINY_LIMIT) value = erfTiny(a);
  else if (a < SERIES_LIMIT) value = erfSeries(a);
  else if (a < SATURATION) value = 1 - erfcContinuedFraction(a);
  else value = 1;
  return x < 0 ? -value : value;
}
