import { UsageError } from '../core/errors.js';

/** Parses a positive number option, naming the option in the error. */
export function positiveNumber(option: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number) || number <= 0) {
      throw new UsageError(`${option} must be a positive number, got "${value}"`);
    }
    return number;
  };
}

/** Parses a positive integer option, naming the option in the error. */
export function positiveInteger(option: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value.trim()) || number <= 0) {
      throw new UsageError(`${option} must be a positive integer, got "${value}"`);
    }
    return number;
  };
}
