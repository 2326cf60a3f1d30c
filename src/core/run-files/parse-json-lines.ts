import { DatasetError } from '../errors.js';

/**
 * Parses JSON Lines text, one value per non-blank line, each through `parseLine`. `name` names the
 * file in messages; a line that is not JSON fails with `<name>: line <n> is not valid JSON`, and
 * `parseLine` gets `<name>: line <n>` to start its own errors with, plus the line's position
 * (from 0, blank lines counted, like `n`).
 */
export function parseJsonLines<T>(
  text: string,
  name: string,
  parseLine: (value: unknown, where: string, position: number) => T,
): T[] {
  const values: T[] = [];
  text.split('\n').forEach((line, position) => {
    if (line.trim() === '') return;
    const where = `${name}: line ${position + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new DatasetError('DATASET_INVALID', `${where} is not valid JSON`);
    }
    values.push(parseLine(value, where, position));
  });
  return values;
}
