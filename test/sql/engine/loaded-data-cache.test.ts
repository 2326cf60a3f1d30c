/**
 * The cached loaded data directory of the server engines (`preload`), on real MariaDB and
 * PostgreSQL servers with a cache folder of the test's own: a second start uses the entry, a changed
 * dump misses, a damaged entry is ignored and rebuilt, two starts that build one entry at once both
 * work, and what a session changes never reaches the entry.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DumpModel } from '../../../src/sql/dump/dump-model.js';
import { parseMysqlDump } from '../../../src/sql/dump/parse-mysql-dump.js';
import { MysqlEngine } from '../../../src/sql/engine/mysql/mysql-engine.js';
import { PostgresEngine } from '../../../src/sql/engine/postgres/postgres-engine.js';
import type { QueryOptions, SqlEngine } from '../../../src/sql/engine/sql-engine.js';
import type { PreloadOutcome } from '../../../src/sql/server/loaded-data-cache.js';
import { mariadbBinaries, postgresBinaries } from '../../../src/sql/server/server-binaries.js';
import { TempDirs } from '../../support/temp-dirs.js';
import { rows } from './server-engine-suite.js';

const NORMAL: QueryOptions = { timeoutMs: 10_000, maxRows: Number.POSITIVE_INFINITY };

function dump(names: string): DumpModel {
  return parseMysqlDump(`
CREATE DATABASE cached;
USE cached;
CREATE TABLE t (id int NOT NULL, name varchar(20), PRIMARY KEY (id)) ENGINE=InnoDB;
INSERT INTO t VALUES ${names
    .split('')
    .map((name, index) => `(${index + 1},'${name}')`)
    .join(',')};
`);
}

function available(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch {
    return false;
  }
}

type Engine = SqlEngine & { readonly dataCache: PreloadOutcome | undefined };

const kinds = [
  {
    title: 'MariaDB',
    available: available(mariadbBinaries),
    start: (cacheDir: string, preload: DumpModel): Promise<Engine> =>
      MysqlEngine.start({ preload, serverOptions: { cacheDir } }),
  },
  {
    title: 'PostgreSQL',
    available: available(postgresBinaries),
    start: (cacheDir: string, preload: DumpModel): Promise<Engine> =>
      PostgresEngine.start({ preload, serverOptions: { cacheDir } }),
  },
];

/** SHA-256 of every file below `dir` (paths and contents). */
function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) hash.update(path).update(readFileSync(path));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

/** The largest file the entry's manifest lists. */
function largestFile(entry: string): string {
  const manifest = JSON.parse(readFileSync(join(entry, 'manifest.json'), 'utf8')) as {
    files: [string, number][];
  };
  const [file] = [...manifest.files].sort((a, b) => b[1] - a[1])[0] ?? [];
  if (!file) throw new Error('the manifest lists no file');
  return join(entry, 'data', file);
}

/** Prepares `model` on `engine` and returns the names of table `t`, in order. */
async function names(engine: Engine, model: DumpModel): Promise<string> {
  await engine.prepare(model);
  const session = await engine.open('cached');
  try {
    return rows(await session.query('SELECT name FROM t ORDER BY id', NORMAL))
      .map((row) => String(row[0]))
      .join('');
  } finally {
    await session.close();
  }
}

for (const kind of kinds) {
  describe.skipIf(!kind.available)(`loaded data cache (${kind.title})`, () => {
    const dirs = new TempDirs();
    const engines: Engine[] = [];
    const start = async (cacheDir: string, model: DumpModel) => {
      const engine = await kind.start(cacheDir, model);
      engines.push(engine);
      return engine;
    };
    afterEach(async () => {
      await Promise.all(engines.splice(0).map((engine) => engine.close()));
      dirs.removeAll();
    });

    it('builds the entry on the first start, uses it on the next, and misses for a changed dump', async () => {
      const cache = dirs.make('loaded-cache');
      const first = await start(cache, dump('abc'));
      expect(first.dataCache).toMatchObject({ source: 'built', reason: 'no entry' });
      expect(await names(first, dump('abc'))).toBe('abc');
      const entry = first.dataCache?.entry ?? '';
      expect(statSync(join(entry, 'manifest.json')).isFile()).toBe(true);

      const second = await start(cache, dump('abc'));
      expect(second.dataCache).toEqual({ source: 'cache', entry });
      expect(await names(second, dump('abc'))).toBe('abc');

      const changed = await start(cache, dump('abd'));
      expect(changed.dataCache?.source).toBe('built');
      expect(changed.dataCache?.entry).not.toBe(entry);
      expect(await names(changed, dump('abd'))).toBe('abd');
    });

    it('ignores and rebuilds a damaged entry: a truncated file, then a manifest that does not check', async () => {
      const cache = dirs.make('loaded-cache');
      const first = await start(cache, dump('xyz'));
      const entry = first.dataCache?.entry ?? '';
      await first.close();
      const file = largestFile(entry);
      truncateSync(file, 4096);
      const afterTruncation = await start(cache, dump('xyz'));
      expect(afterTruncation.dataCache).toMatchObject({ source: 'built', entry });
      expect(afterTruncation.dataCache?.reason).toMatch(/has 4096 bytes/);
      expect(await names(afterTruncation, dump('xyz'))).toBe('xyz');
      expect(statSync(largestFile(entry)).size).toBeGreaterThan(4096);

      const manifest = join(entry, 'manifest.json');
      writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"files":[', '"files":[["extra",1],'));
      const afterTampering = await start(cache, dump('xyz'));
      expect(afterTampering.dataCache).toMatchObject({
        source: 'built',
        reason: 'manifest checksum mismatch',
      });
      expect(await names(afterTampering, dump('xyz'))).toBe('xyz');

      writeFileSync(manifest, '{"format":');
      const afterTear = await start(cache, dump('xyz'));
      expect(afterTear.dataCache?.reason).toMatch(/^unreadable manifest/);
      expect(await names(afterTear, dump('xyz'))).toBe('xyz');
      expect((await start(cache, dump('xyz'))).dataCache?.source).toBe('cache');
    });

    it('starts twice at once on an empty cache: both work and one entry is left', async () => {
      const cache = dirs.make('loaded-cache');
      const [one, two] = await Promise.all([start(cache, dump('pq')), start(cache, dump('pq'))]);
      expect(one?.dataCache?.source, one?.dataCache?.reason).toMatch(/^(built|cache)$/);
      expect(two?.dataCache?.source, two?.dataCache?.reason).toMatch(/^(built|cache)$/);
      expect(one?.dataCache?.entry).toBe(two?.dataCache?.entry);
      expect(await names(one as Engine, dump('pq'))).toBe('pq');
      expect(await names(two as Engine, dump('pq'))).toBe('pq');
      const root = join(cache, 'sql', 'servers');
      expect(readdirSync(root).filter((name) => name.includes('-loaded-'))).toHaveLength(1);
      expect((await start(cache, dump('pq'))).dataCache?.source).toBe('cache');
    });

    it('keeps the entry pristine: what a session writes never reaches it', async () => {
      const cache = dirs.make('loaded-cache');
      const model = dump('mn');
      const builder = await start(cache, model);
      const entry = builder.dataCache?.entry ?? '';
      await builder.close();
      const before = treeHash(entry);

      const engine = await start(cache, model);
      expect(engine.dataCache?.source).toBe('cache');
      await engine.prepare(model);
      const session = await engine.open('cached');
      expect((await session.query("INSERT INTO t VALUES (9, 'zz')", NORMAL)).kind).toBe('ok');
      expect((await session.query('DELETE FROM t WHERE id = 1', NORMAL)).kind).toBe('ok');
      expect((await session.query('CREATE TABLE extra (x int)', NORMAL)).kind).toBe('ok');
      expect(rows(await session.query('SELECT count(*) FROM t', NORMAL))[0]?.map(Number)).toEqual([2]);
      await engine.close();
      expect(treeHash(entry)).toBe(before);

      const next = await start(cache, model);
      expect(next.dataCache?.source).toBe('cache');
      expect(await names(next, model)).toBe('mn');
    });
  });
}
