import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  missingUpstreamReason,
  upstreamFile,
  upstreamFilesUnder,
} from '../../src/datasets/upstream-files.js';
import { UPSTREAM_COMMIT, UPSTREAM_MISSING } from '../../src/datasets/upstream-manifest.js';
import { filesUnder } from '../support/mirror-files.js';
import { MIRROR } from '../support/project.js';

const all = upstreamFilesUnder('');

describe('upstream manifest', () => {
  it('pins the commit of the mirror', () => {
    expect(UPSTREAM_COMMIT).toBe('c3e46d827cfc9d4c704ec078f7abf9f41e3191d8');
    expect(readFileSync(join(MIRROR, 'README.md'), 'utf8')).toContain(UPSTREAM_COMMIT);
  });

  it('has the size and SHA-256 of every file as the mirror holds it', () => {
    expect(all.length).toBeGreaterThan(180);
    for (const file of all) {
      const bytes = readFileSync(join(MIRROR, file.path));
      expect({ path: file.path, size: bytes.length }).toEqual({ path: file.path, size: file.size });
      expect(createHash('sha256').update(bytes).digest('hex'), file.path).toBe(file.sha256);
    }
  });

  it('covers every file a dataset needs, every CTF asset and every recorded result, and no solution', () => {
    for (const path of [
      'data/nl2bash/nl2bash_fs_1.json',
      'data/nl2bash/test_queries.json',
      'docker/bash_scripts/setup_nl2b_fs_4.sh',
      'docker/bash_scripts/setup_fs.sh',
      'docker/docker.gitignore',
      'data/sql/spider/ic_spider_dbs.sql',
      'data/sql/wikisql/ic_wikisql_dev.sql',
      'data/sql/bird/ic_bird.json',
      'data/python/mbpp/ic_mbpp.json',
      'data/ctf/ic_ctf.json',
      'data/ctf/task_assets/71/Forensics is fun.pptm',
    ]) {
      expect(upstreamFile(path), path).toBeDefined();
    }
    const assets = filesUnder(join(MIRROR, 'data/ctf/task_assets')).filter(
      (path) => !path.includes('solution/'),
    );
    expect(upstreamFilesUnder('data/ctf/task_assets/').map((file) => file.path)).toEqual(
      assets.map((path) => `data/ctf/task_assets/${path}`).sort(),
    );
    const results = filesUnder(join(MIRROR, 'data/results')).map((path) => `data/results/${path}`);
    expect(upstreamFilesUnder('data/results/').map((file) => file.path)).toEqual(results.sort());
    expect(all.some((file) => file.path.includes('/solution/'))).toBe(false);
    expect(upstreamFile('data/ctf/README.md')).toBeUndefined();
  });

  it('names the upstream files the mirror lacks, and none of them is pinned', () => {
    expect(UPSTREAM_MISSING.map((missing) => missing.path)).toEqual(
      expect.arrayContaining(['data/sql/bird/ic_bird_dbs.sql', 'data/ctf/task_assets/65/']),
    );
    for (const missing of UPSTREAM_MISSING) {
      expect(upstreamFilesUnder(missing.path)).toEqual([]);
      if (!missing.path.endsWith('/')) expect(existsSync(join(MIRROR, missing.path))).toBe(false);
    }
    expect(missingUpstreamReason('data/ctf/task_assets/70/anything.bin')).toMatch(/over 4 MB/);
    expect(missingUpstreamReason('data/nl2bash/nl2bash_fs_1.json')).toBeUndefined();
  });
});
