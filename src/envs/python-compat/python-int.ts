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
