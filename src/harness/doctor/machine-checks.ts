import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import type { CheckItem } from '../../sandbox/sandbox.js';

/** A titled group of checks; `required` groups decide whether the default environment can run. */
export interface CheckGroup {
  readonly title: string;
  readonly required: boolean;
  readonly items: readonly CheckItem[];
}

function version(command: string, args: string[]): string | null {
  try {
    return execFileSync(command, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 10_000,
    })
      .trim()
      .split('\n')[0]!;
  } catch {
    return null;
  }
}

function firstExisting(paths: readonly string[]): string | undefined {
  return paths.find((path) => existsSync(path));
}

function postgresBin(): string | undefined {
  try {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    return versions.map((v) => `/usr/lib/postgresql/${v}/bin`).find((dir) => existsSync(`${dir}/initdb`));
  } catch {
    return undefined;
  }
}

/** Node itself: intercode needs 20 or newer. */
export function nodeCheck(): CheckItem {
  const major = Number(process.versions.node.split('.')[0]);
  return {
    name: 'node',
    ok: major >= 20,
    detail: `v${process.versions.node}`,
    fix: 'install Node.js 20 or newer',
  };
}

/** Interpreters and database engines the environments use. */
export async function environmentChecks(): Promise<CheckItem[]> {
  const items: CheckItem[] = [];
  const python = version('/usr/bin/python3', ['--version']);
  items.push({
    name: 'python3 (Debian, for the Python env)',
    ok: python !== null,
    optional: true,
    detail: python ? `/usr/bin/python3: ${python}` : '/usr/bin/python3 not found',
    fix: 'apt-get install -y python3',
  });
  let sqlite: string | null = null;
  try {
    const module = 'better-sqlite3';
    await import(module);
    sqlite = 'better-sqlite3 loads';
  } catch {
    sqlite = null;
  }
  items.push({
    name: 'sqlite engine (embedded)',
    ok: sqlite !== null,
    optional: true,
    detail: sqlite ?? 'better-sqlite3 is not installed',
    fix: 'npm install better-sqlite3@12',
  });
  const mariadbd = firstExisting(['/usr/sbin/mariadbd', '/usr/sbin/mysqld']);
  items.push({
    name: 'mysql engine (MariaDB server)',
    ok: mariadbd !== undefined,
    optional: true,
    detail: mariadbd ? (version(mariadbd, ['--version']) ?? mariadbd) : 'mariadbd not found',
    fix: 'apt-get install -y --no-install-recommends mariadb-server',
  });
  const pg = postgresBin();
  items.push({
    name: 'postgres engine (PostgreSQL server)',
    ok: pg !== undefined,
    optional: true,
    detail: pg ? (version(`${pg}/postgres`, ['--version']) ?? pg) : 'initdb/pg_ctl not found',
    fix: 'apt-get install -y postgresql',
  });
  return items;
}
