import { readFileSync } from 'node:fs';

/** The version in the project's package.json (what workers and runs compare). */
export function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}
