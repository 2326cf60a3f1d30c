import { existsSync, readFileSync } from 'node:fs';

/** The complete lines of a JSONL file (a torn last line is left out), parsed; none when it does not exist. */
export function jsonLines<T = Record<string, unknown>>(path: string): T[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}
