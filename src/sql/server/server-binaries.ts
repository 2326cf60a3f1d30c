import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { isExecutable } from '../../core/host/is-executable.js';
import { SqlEngineError } from '../engine/sql-engine-error.js';

/** The command that installs the MariaDB server on Debian and Ubuntu. */
export const MARIADB_INSTALL = 'apt-get install -y --no-install-recommends mariadb-server';
/** The command that installs the PostgreSQL server on Debian and Ubuntu. */
export const POSTGRES_INSTALL = 'apt-get install -y postgresql';
/** `setpriv` comes with util-linux. */
export const SETPRIV_INSTALL = 'apt-get install -y util-linux';

/** The MariaDB programs the server manager runs. */
export interface MariadbBinaries {
  readonly mariadbd: string;
  readonly installDb: string;
  /** `10.11.19-MariaDB-0+deb12u1`: the part of `mariadbd --version` after `Ver`. */
  readonly version: string;
}

/** The PostgreSQL programs the server manager runs. */
export interface PostgresBinaries {
  readonly binDir: string;
  readonly postgres: string;
  readonly initdb: string;
  /** `15.18` (from `postgres --version`). */
  readonly version: string;
  readonly major: number;
}

/** The first executable among absolute candidates and names looked up on PATH. */
export function findProgram(candidates: readonly string[]): string | undefined {
  const path = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const candidate of candidates) {
    if (candidate.startsWith('/')) {
      if (isExecutable(candidate)) return candidate;
      continue;
    }
    for (const dir of [...path, '/usr/sbin', '/usr/local/sbin', '/sbin']) {
      const full = join(dir, candidate);
      if (isExecutable(full)) return full;
    }
  }
  return undefined;
}

/** The first line `program --version` prints; throws `SQL_ENGINE_UNAVAILABLE` when it fails. */
function versionLine(program: string): string {
  try {
    return execFileSync(program, ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 10_000,
    })
      .trim()
      .split('\n')[0]!;
  } catch (cause) {
    throw new SqlEngineError('SQL_ENGINE_UNAVAILABLE', `${program} --version failed: ${String(cause)}`, {
      cause,
    });
  }
}

/** Found binaries, by the override variable's value they were found with. */
let mariadb: { readonly key: string; readonly found: MariadbBinaries } | undefined;
let postgres: { readonly key: string; readonly found: PostgresBinaries } | undefined;

/**
 * The MariaDB server (`$INTERCODE_MARIADBD`, else the distribution's `mariadbd`) and its
 * `mariadb-install-db` (MySQL's own `mysqld` is not started by intercode: point `--db-url` at a
 * running MySQL instead). Throws `SQL_ENGINE_UNAVAILABLE` naming the package.
 */
export function mariadbBinaries(): MariadbBinaries {
  const override = process.env.INTERCODE_MARIADBD;
  if (mariadb?.key === (override ?? '')) return mariadb.found;
  const mariadbd = override
    ? findProgram([override])
    : findProgram([
        '/usr/sbin/mariadbd',
        '/usr/libexec/mariadbd',
        '/usr/local/mysql/bin/mariadbd',
        'mariadbd',
      ]);
  const installDb = findProgram(['/usr/bin/mariadb-install-db', 'mariadb-install-db', 'mysql_install_db']);
  if (!mariadbd || !installDb) {
    throw new SqlEngineError(
      'SQL_ENGINE_UNAVAILABLE',
      `the mysql engine needs a MariaDB server (${mariadbd ? 'mariadb-install-db' : 'mariadbd'} not found): run ${MARIADB_INSTALL}, or give --db-url mysql://user:password@host:port`,
    );
  }
  const line = versionLine(mariadbd);
  const version = /\bVer\s+(\S+)/.exec(line)?.[1] ?? line;
  if (!/mariadb/i.test(version)) {
    throw new SqlEngineError(
      'SQL_ENGINE_UNAVAILABLE',
      `${mariadbd} is not MariaDB (${line}): run ${MARIADB_INSTALL}, or give --db-url for a running MySQL`,
    );
  }
  mariadb = { key: override ?? '', found: { mariadbd, installDb, version } };
  return mariadb.found;
}

/** The newest `/usr/lib/postgresql/<major>/bin` (Debian's layout), or the directory of `postgres` on PATH. */
function postgresBinDir(): string | undefined {
  const override = process.env.INTERCODE_PG_BIN;
  if (override) return override;
  try {
    const majors = readdirSync('/usr/lib/postgresql')
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const major of majors) {
      const dir = `/usr/lib/postgresql/${major}/bin`;
      if (isExecutable(join(dir, 'postgres')) && isExecutable(join(dir, 'initdb'))) return dir;
    }
  } catch {
    // Not Debian's layout.
  }
  const found = findProgram(['postgres']);
  return found ? found.slice(0, found.lastIndexOf('/')) : undefined;
}

/**
 * The PostgreSQL server and `initdb` (from `$INTERCODE_PG_BIN`, else the newest
 * `/usr/lib/postgresql/<major>/bin`, else PATH). Throws `SQL_ENGINE_UNAVAILABLE` naming the package.
 */
export function postgresBinaries(): PostgresBinaries {
  const key = process.env.INTERCODE_PG_BIN ?? '';
  if (postgres?.key === key) return postgres.found;
  const binDir = postgresBinDir();
  const server = binDir ? join(binDir, 'postgres') : undefined;
  const initdb = binDir ? join(binDir, 'initdb') : undefined;
  if (!binDir || !server || !initdb || !isExecutable(server) || !isExecutable(initdb)) {
    throw new SqlEngineError(
      'SQL_ENGINE_UNAVAILABLE',
      `the postgres engine needs a PostgreSQL server (postgres and initdb not found): run ${POSTGRES_INSTALL}, or give --db-url postgres://user:password@host:port/database`,
    );
  }
  const line = versionLine(server);
  const version = /(\d+(?:\.\d+)*)/.exec(line)?.[1] ?? line;
  postgres = {
    key,
    found: { binDir, postgres: server, initdb, version, major: Number.parseInt(version, 10) },
  };
  return postgres.found;
}

/** `setpriv` (util-linux), which drops privileges and arms the parent-death signal. */
export function setprivPath(): string {
  const path = findProgram(['/usr/bin/setpriv', 'setpriv']);
  if (!path) {
    throw new SqlEngineError(
      'SQL_ENGINE_UNAVAILABLE',
      `setpriv (util-linux) is needed to start database servers: run ${SETPRIV_INSTALL}`,
    );
  }
  return path;
}
