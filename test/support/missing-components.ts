import { existsSync } from 'node:fs';
import type { CheckItem } from '../../src/core/host/check-item.js';
import { clockLibraryUnder } from '../../src/sandbox/deterministic-clock.js';
import { dockerClient, dockerEndpoint } from '../../src/sandbox/docker/docker-client.js';
import { BwrapProvider } from '../../src/sandbox/index.js';
import { checkSqlEngines } from '../../src/sql/server/check-sql-engines.js';

// Why a component a test needs is missing on this machine (one line naming the fix), or null when it
// is there. Pair with skipIfMissing / describeMissing, which fail instead under INTERCODE_REQUIRE_ALL.

function failed(items: readonly CheckItem[]): string {
  return items
    .filter((item) => !item.ok && !item.optional)
    .map((item) => `${item.name}: ${item.detail}${item.fix ? ` (fix: ${item.fix})` : ''}`)
    .join('; ');
}

/** Why the bwrap sandbox cannot run here (its provider's check), or null. */
export async function bwrapMissing(): Promise<string | null> {
  const provider = new BwrapProvider();
  try {
    const check = await provider.check();
    return check.ok ? null : `the bwrap sandbox cannot run here: ${failed(check.items)}`;
  } finally {
    await provider.close();
  }
}

/** Why no Docker daemon answers, or null. */
export async function dockerMissing(): Promise<string | null> {
  try {
    await dockerClient().ping();
    return null;
  } catch (error) {
    return `no Docker daemon at ${dockerEndpoint()} (${(error as Error).message}); set DOCKER_HOST or start dockerd`;
  }
}

const SERVER_CHECK = {
  mysql: 'mysql engine (MariaDB server)',
  postgres: 'postgres engine (PostgreSQL server)',
} as const;

/** Why `--engine <engine>` cannot start its own database server here (binaries, setpriv), or null. */
export async function sqlServerMissing(engine: 'mysql' | 'postgres'): Promise<string | null> {
  const items = await checkSqlEngines();
  const wanted = new Set<string>([SERVER_CHECK[engine], 'setpriv (server launcher)']);
  const missing = items.filter((item) => wanted.has(item.name) && !item.ok);
  if (missing.length === 0) return null;
  const reasons = missing.map((item) => `${item.detail}${item.fix ? ` (fix: ${item.fix})` : ''}`);
  return `${engine} engine unavailable: ${reasons.join('; ')}`;
}

/** Why a file or folder of the data mirror is not there, or null. */
export function mirrorMissing(path: string): string | null {
  return existsSync(path)
    ? null
    : `${path} not found: set INTERCODE_DATA_MIRROR to the mirror of the upstream data`;
}

/** Why no redis-server can be started here (the queue tests start private ones), or null. */
export function redisMissing(): string | null {
  const found = (process.env.PATH ?? '')
    .split(':')
    .some((dir) => dir !== '' && existsSync(`${dir}/redis-server`));
  return found ? null : 'redis-server is not installed (fix: apt-get install redis-server)';
}

/** Why libfaketime (the clock of deterministic sandboxes) is not on this machine, or null. */
export function faketimeMissing(): string | null {
  return clockLibraryUnder('/') === null
    ? 'libfaketime is not installed (fix: apt-get install libfaketime)'
    : null;
}

/** Debian's Chromium, which the viewer's browser tests drive through playwright-core (never a downloaded browser). */
export const CHROMIUM = '/usr/bin/chromium';

/** Why Chromium (the viewer's browser tests) is not on this machine, or null. */
export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM) ? null : `${CHROMIUM} is not installed (fix: apt-get install chromium)`;
}
