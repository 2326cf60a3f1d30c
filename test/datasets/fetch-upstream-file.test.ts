import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { DatasetError } from '../../src/core/errors.js';
import {
  ensureUpstreamFile,
  fetchUpstreamFile,
  isUpstreamFileCached,
  upstreamCachePath,
} from '../../src/datasets/fetch-upstream-file.js';
import { fetchUpstreamFiles } from '../../src/datasets/fetch-upstream-files.js';
import { upstreamFile } from '../../src/datasets/upstream-files.js';
import { UPSTREAM_COMMIT } from '../../src/datasets/upstream-manifest.js';
import { it } from '../support/fixtures.js';
import { copyMirrorSubset, filesUnder } from '../support/mirror-files.js';
import { MIRROR } from '../support/project.js';
import { closeServer } from '../support/serve-folder.js';

const FS1 = [
  'data/nl2bash/nl2bash_fs_1.json',
  'docker/bash_scripts/setup_nl2b_fs_1.sh',
  'docker/docker.gitignore',
];
const JSON_FS1 = FS1[0]!;

let cache = '';

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

async function failure(promise: Promise<unknown>): Promise<DatasetError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(DatasetError);
  expect((error as DatasetError).message).not.toContain('\n');
  return error as DatasetError;
}

// Every test starts with an empty cache of its own and the local mirror, both put back after it.
it.beforeEach(({ setEnv, tempDir }) => {
  cache = tempDir('cache');
  setEnv('INTERCODE_CACHE_DIR', cache);
  setEnv('INTERCODE_DATA_MIRROR', MIRROR);
});

describe('fetchUpstreamFile', () => {
  it('copies from a directory mirror into <cache>/datasets/<commit>/<path>, verified, then reuses it', async () => {
    const local = await fetchUpstreamFiles(FS1);
    for (const path of FS1) {
      expect(local[path]).toBe(join(cache, 'datasets', UPSTREAM_COMMIT, path));
      expect(sha256(local[path]!)).toBe(upstreamFile(path)!.sha256);
      expect(isUpstreamFileCached(path)).toBe(true);
    }
    const again = await ensureUpstreamFile(JSON_FS1);
    expect(again.fetched).toBe(false);
    expect(filesUnder(cache).filter((path) => !path.includes('builtin'))).toHaveLength(3);
  });

  it('downloads from an http mirror and verifies what it got', async ({ serve, setEnv }) => {
    const { url, requests } = await serve(MIRROR);
    setEnv('INTERCODE_DATA_MIRROR', `${url}/`);
    const first = await ensureUpstreamFile('data/ctf/task_assets/71/Forensics is fun.pptm');
    expect(first.fetched).toBe(true);
    expect(first.from).toBe(`mirror ${url}`);
    expect(sha256(first.localPath)).toBe(first.file.sha256);
    expect(requests).toEqual(['/data/ctf/task_assets/71/Forensics is fun.pptm']);
    await fetchUpstreamFile('data/ctf/task_assets/71/Forensics is fun.pptm');
    expect(requests).toHaveLength(1);
  });

  it('reports a corrupt mirror file in one line and leaves nothing in the cache', async ({
    setEnv,
    tempDir,
  }) => {
    const mirror = copyMirrorSubset(tempDir('mirror'), FS1);
    const bytes = readFileSync(join(mirror, JSON_FS1));
    bytes[100] = (bytes[100] ?? 0) ^ 0xff;
    writeFileSync(join(mirror, JSON_FS1), bytes);
    truncateSync(join(mirror, FS1[1]!), 100);
    setEnv('INTERCODE_DATA_MIRROR', mirror);

    const corrupt = await failure(fetchUpstreamFile(JSON_FS1));
    expect(corrupt.code).toBe('DATASET_DOWNLOAD');
    expect(corrupt.message).toContain(JSON_FS1);
    expect(corrupt.message).toMatch(/does not match its pinned SHA-256.*nothing was cached/);
    const partial = await failure(fetchUpstreamFile(FS1[1]!));
    expect(partial.message).toMatch(/setup_nl2b_fs_1\.sh .* incomplete or corrupt: 100 bytes, expected 4018/);
    expect(filesUnder(cache)).toEqual([]);
    expect(isUpstreamFileCached(JSON_FS1)).toBe(false);
  });

  it('refuses an http download that is longer than the pinned size', async ({ serve, setEnv, tempDir }) => {
    const mirror = copyMirrorSubset(tempDir('mirror'), [JSON_FS1]);
    writeFileSync(
      join(mirror, JSON_FS1),
      Buffer.concat([readFileSync(join(mirror, JSON_FS1)), Buffer.from('junk')]),
    );
    const { url } = await serve(mirror);
    setEnv('INTERCODE_DATA_MIRROR', url);
    const error = await failure(fetchUpstreamFile(JSON_FS1));
    expect(error.message).toMatch(/nl2bash_fs_1\.json from mirror http:.* more than the pinned 13588 bytes/);
    expect(filesUnder(cache)).toEqual([]);
  });

  it('detects a truncated or altered cached file and fetches it again', async ({ setEnv, tempDir }) => {
    const path = await fetchUpstreamFile(JSON_FS1);
    truncateSync(path, 1000);
    expect(isUpstreamFileCached(JSON_FS1)).toBe(false);
    const again = await ensureUpstreamFile(JSON_FS1);
    expect(again.fetched).toBe(true);
    expect(sha256(path)).toBe(upstreamFile(JSON_FS1)!.sha256);

    // Same size, other bytes, in a cache this process has not verified yet.
    setEnv('INTERCODE_CACHE_DIR', tempDir('cache'));
    const target = upstreamCachePath(JSON_FS1);
    mkdirSync(join(target, '..'), { recursive: true });
    writeFileSync(target, Buffer.alloc(upstreamFile(JSON_FS1)!.size, 0x20));
    const repaired = await ensureUpstreamFile(JSON_FS1);
    expect(repaired.fetched).toBe(true);
    expect(sha256(target)).toBe(upstreamFile(JSON_FS1)!.sha256);
  });

  it('says in one line which file a directory or http mirror does not have', async ({
    serve,
    setEnv,
    tempDir,
  }) => {
    const mirror = copyMirrorSubset(tempDir('mirror'), [FS1[2]!]);
    setEnv('INTERCODE_DATA_MIRROR', mirror);
    const fromDir = await failure(fetchUpstreamFile(JSON_FS1));
    expect(fromDir.message).toBe(`mirror ${mirror} has no ${JSON_FS1}`);

    const { url } = await serve(mirror);
    setEnv('INTERCODE_DATA_MIRROR', url);
    const fromHttp = await failure(fetchUpstreamFile(JSON_FS1));
    expect(fromHttp.message).toMatch(new RegExp(`^mirror ${url} has no ${JSON_FS1} \\(HTTP 404`));
    expect(filesUnder(cache)).toEqual([]);
  });

  it('names the first missing file in the order given, whichever download fails first', async ({
    setEnv,
  }) => {
    // The first file's 404 comes late, the second's at once: the error still names the first.
    const server = createServer((request, response) => {
      const late = request.url?.endsWith(JSON_FS1) === true;
      setTimeout(() => response.writeHead(404).end('not found'), late ? 300 : 0);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      setEnv('INTERCODE_DATA_MIRROR', url);
      const error = await failure(fetchUpstreamFiles(FS1));
      expect(error.message).toMatch(new RegExp(`^mirror ${url} has no ${JSON_FS1} \\(HTTP 404`));
      expect(filesUnder(cache)).toEqual([]);
    } finally {
      await closeServer(server);
    }
  });

  it('names the address when an http mirror cannot be reached', async ({ serve, setEnv }) => {
    const { url, server } = await serve(MIRROR);
    await closeServer(server);
    setEnv('INTERCODE_DATA_MIRROR', url);
    const error = await failure(fetchUpstreamFile(JSON_FS1));
    expect(error.message).toBe(`could not download ${JSON_FS1} from ${url}/${JSON_FS1}: ECONNREFUSED`);
  });

  it('refuses files the manifest does not pin, saying why', async () => {
    const unknown = await failure(fetchUpstreamFile('data/ctf/task_assets/3/solution/solve.py'));
    expect(unknown.code).toBe('DATASET_UNAVAILABLE');
    expect(unknown.message).toMatch(/not in the manifest/);
    const missing = await failure(fetchUpstreamFile('data/sql/bird/ic_bird_dbs.sql'));
    expect(missing.message).toMatch(
      /^upstream file data\/sql\/bird\/ic_bird_dbs\.sql is not available: over 4 MB/,
    );
  });
});
