/** A rate as a percentage with one decimal. */
export function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}`;
}

export function number(value: number, digits = 2): string {
  return Number.isInteger(value) ? value.toLocaleString('en') : value.toFixed(digits);
}

export function cost(value: number | null): string {
  return value === null ? 'unknown' : `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

export function duration(ms: number): string {
  return ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}
