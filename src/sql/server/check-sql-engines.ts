import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckItem } from '../../core/host/check-item.js';
import { errorReason } from '../engine/sql-engine-error.js';
import { MariadbServer } from './mariadb-server.js';
import { PostgresServer } from './postgres-server.js';
import {
  MARIADB_INSTALL,
  mariadbBinaries,
  POSTGRES_INSTALL,
  postgresBinaries,
  SETPRIV_INSTALL,
  setprivPath,
} from './server-binaries.js';
import { runningAsRoot, serviceAccount } from './service-account.js';

/** Options of {@link checkSqlEngines}. */
export interface SqlEngineCheckOptions {
  /**
   * Also start each server and stop it again (builds the cached data directory the first time,
   * about 1–3 s; then 0.2–0.4 s each), proving that it runs here, not only that it is installed.
   */
  readonly start?: boolean;
}

async function started(start: () => Promise<{ startMs: number; stop(): Promise<void> }>): Promise<string> {
  const server = await start();
  const ms = Math.round(server.startMs);
  await server.stop();
  return `, started and stopped (start ${ms} ms)`;
}

/** A server engine that cannot start its own server here; it still works with `--db-url`. */
function unavailable(name: string, error: unknown, url: string, fix: string): CheckItem {
  return { name, ok: false, optional: true, detail: `${errorReason(error)} (or use --db-url ${url})`, fix };
}

/** Where PostgreSQL keeps its extensions' control files (Debian's layout first). */
function citextAvailable(major: number, binDir: string): boolean {
  const candidates = [
    `/usr/share/postgresql/${major}/extension/citext.control`,
    join(binDir, '..', 'share', 'extension', 'citext.control'),
    join(binDir, '..', 'share', 'postgresql', 'extension', 'citext.control'),
  ];
  return candidates.some((path) => existsSync(path));
}

/**
 * What `intercode doctor` reports about the server engines: whether `--engine mysql` and
 * `--engine postgres` can start their own server here (binaries, the account PostgreSQL runs
 * under when intercode is root, `setpriv`), with the command that fixes each missing piece.
 * Both engines also work with `--db-url` on a server elsewhere, which these checks do not need.
 */
export async function checkSqlEngines(options: SqlEngineCheckOptions = {}): Promise<CheckItem[]> {
  const items: CheckItem[] = [];
  let setpriv: string | undefined;
  try {
    setpriv = setprivPath();
  } catch {
    setpriv = undefined;
  }
  items.push({
    name: 'setpriv (server launcher)',
    ok: setpriv !== undefined,
    detail: setpriv ?? 'setpriv not found: servers cannot be tied to intercode (parent-death signal)',
    fix: SETPRIV_INSTALL,
  });

  try {
    const binaries = mariadbBinaries();
    let detail = `MariaDB ${binaries.version} (${binaries.mariadbd})`;
    if (runningAsRoot()) detail += `, runs as ${serviceAccount(['mysql', 'nobody'])?.name ?? 'root'}`;
    if (options.start && setpriv) detail += await started(() => MariadbServer.start());
    items.push({ name: 'mysql engine (MariaDB server)', ok: true, detail, fix: MARIADB_INSTALL });
  } catch (error) {
    items.push(unavailable('mysql engine (MariaDB server)', error, 'mysql://…', MARIADB_INSTALL));
  }

  try {
    const binaries = postgresBinaries();
    const account = serviceAccount(['postgres', 'nobody']);
    if (runningAsRoot() && !account) {
      throw new Error('PostgreSQL refuses to run as root and there is no postgres or nobody account');
    }
    let detail = `PostgreSQL ${binaries.version} (${binaries.binDir})`;
    if (account) detail += `, runs as ${account.name}`;
    if (options.start && setpriv) detail += await started(() => PostgresServer.start());
    items.push({ name: 'postgres engine (PostgreSQL server)', ok: true, detail, fix: POSTGRES_INSTALL });
    const citext = citextAvailable(binaries.major, binaries.binDir);
    items.push({
      name: 'postgres case-insensitive text (citext)',
      ok: citext,
      optional: true,
      detail: citext
        ? 'citext available: text compares case-insensitively, as upstream MySQL'
        : 'citext missing: text comparisons are case-sensitive',
      fix: 'apt-get install -y postgresql-contrib',
    });
  } catch (error) {
    items.push(unavailable('postgres engine (PostgreSQL server)', error, 'postgres://…', POSTGRES_INSTALL));
  }
  return items;
}
