import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import {
  type GitChange,
  gitStatusChanges,
  parseTopLevelIgnore,
  UPSTREAM_IGNORED,
} from '../../../src/envs/bash/git-status-changes.js';
import { scriptLayer } from '../../../src/envs/bash/script-layer.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import type { Sandbox } from '../../../src/sandbox/sandbox.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';
import { MIRROR } from '../../support/project.js';

// What `git status --short` would print, computed from a real bwrap sandbox's diff against a small
// layer built by scriptLayer. Every expectation below was checked against real git on the same tree
// (git init at /, git add -A, commit, change, git status --short).
const provider = new BwrapProvider();
const ignored: ReadonlySet<string> = new Set(UPSTREAM_IGNORED);
const noBwrap = await bwrapMissing();
let layer = '';
let sandbox: Sandbox;

const SETUP = `
mkdir -p /proj/sub/deep /proj/keep /proj/empty-from-setup/inner /root/kept-empty
echo a > /proj/a.txt
echo b > /proj/sub/b.txt
echo c > /proj/sub/deep/c.txt
echo d > /proj/keep/d.txt
echo r > /root/r.txt
`;

// The file's own cache (INTERCODE_CACHE_DIR) for everything below.
it.beforeAll(async ({ cache: _cache }) => {
  if (noBwrap) return;
  layer = await scriptLayer(provider, {
    name: 'git-status',
    script: SETUP,
    image: 'host',
    keepEmptyUnder: ignored,
  });
  sandbox = await provider.create({ layers: [layer], label: 'git-status' });
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  await provider.close();
});

/** Runs `command` on a pristine copy of the layer and returns the git-status view of the changes. */
async function statusAfter(command: string): Promise<GitChange[]> {
  await sandbox.reset();
  const result = await sandbox.exec(command);
  expect(result.output).toBe('');
  expect(result.exitCode).toBe(0);
  return gitStatusChanges(await sandbox.diff(), ignored, [layer]);
}

const c = (status: string, path: string): GitChange => ({ path, status });

describe('scriptLayer', () => {
  it('keeps what the script wrote, drops empty directories outside the kept top-level folders, and caches', async ({
    needs,
  }) => {
    needs(noBwrap);
    expect(readFileSync(join(layer, 'proj/sub/deep/c.txt'), 'utf8')).toBe('c\n');
    expect(existsSync(join(layer, 'proj/empty-from-setup'))).toBe(false);
    expect(statSync(join(layer, 'root/kept-empty')).isDirectory()).toBe(true);
    expect(readFileSync(join(layer, '..', 'build.log'), 'utf8')).toMatch(/^exit 0\n/);
    const again = await scriptLayer(provider, {
      name: 'git-status',
      script: SETUP,
      image: 'host',
      keepEmptyUnder: ignored,
    });
    expect(again).toBe(layer);
    const changed = await scriptLayer(provider, {
      name: 'git-status',
      script: `${SETUP}echo e > /proj/e.txt\n`,
      image: 'host',
      keepEmptyUnder: ignored,
    });
    expect(changed).not.toBe(layer);
    expect(readdirSync(join(changed, 'proj')).sort()).toEqual(['a.txt', 'e.txt', 'keep', 'sub']);
  });
});

describe('gitStatusChanges', () => {
  it('reports nothing for a pristine sandbox', async ({ needs }) => {
    needs(noBwrap);
    expect(await statusAfter('true')).toEqual([]);
  });

  it('reports an untracked file as `?? path`', async ({ needs }) => {
    needs(noBwrap);
    expect(await statusAfter('echo x > /proj/new.txt && echo t > /top.txt')).toEqual([
      c('??', 'proj/new.txt'),
      c('??', 'top.txt'),
    ]);
  });

  it('reports a new directory holding files once, as `?? dir/`', async ({ needs }) => {
    needs(noBwrap);
    expect(
      await statusAfter(
        'mkdir -p /proj/newdir/inner /newtop /proj/keep/newsub && echo f > /proj/newdir/inner/f && echo g > /proj/newdir/g && echo f > /newtop/f && echo x > /proj/keep/newsub/x',
      ),
    ).toEqual([c('??', 'newtop/'), c('??', 'proj/keep/newsub/'), c('??', 'proj/newdir/')]);
  });

  it('does not see new empty directories (nor ones whose subfolders are all empty)', async ({ needs }) => {
    needs(noBwrap);
    expect(await statusAfter('mkdir /proj/empty /emptytop && mkdir -p /proj/e1/e2')).toEqual([]);
  });

  it('sees a file in a folder the setup left empty as new (git clean removed that folder)', async ({
    needs,
  }) => {
    needs(noBwrap);
    expect(
      await statusAfter('mkdir -p /proj/empty-from-setup/inner && echo x > /proj/empty-from-setup/inner/x'),
    ).toEqual([c('??', 'proj/empty-from-setup/')]);
  });

  it('reports a modified file as M', async ({ needs }) => {
    needs(noBwrap);
    expect(await statusAfter('echo more >> /proj/a.txt && echo new > /proj/sub/deep/c.txt')).toEqual([
      c('M', 'proj/a.txt'),
      c('M', 'proj/sub/deep/c.txt'),
    ]);
  });

  it('reports a deleted file as D', async ({ needs }) => {
    needs(noBwrap);
    expect(await statusAfter('rm /proj/sub/b.txt')).toEqual([c('D', 'proj/sub/b.txt')]);
  });

  it('reports a deleted directory as a D per file it held', async ({ needs }) => {
    needs(noBwrap);
    expect(await statusAfter('rm -r /proj/sub')).toEqual([
      c('D', 'proj/sub/b.txt'),
      c('D', 'proj/sub/deep/c.txt'),
    ]);
  });

  it('reports a directory deleted and made again as its deleted files plus the new ones', async ({
    needs,
  }) => {
    needs(noBwrap);
    // git: " D proj/sub/b.txt", " D proj/sub/deep/c.txt", "?? proj/sub/new.txt" (the index still has proj/sub).
    const status = await statusAfter('rm -r /proj/sub && mkdir /proj/sub && echo n > /proj/sub/new.txt');
    expect(status).toEqual([
      c('D', 'proj/sub/b.txt'),
      c('D', 'proj/sub/deep/c.txt'),
      c('??', 'proj/sub/new.txt'),
    ]);
  });

  it('leaves out the ignored top-level folders (etc, root, home, var, …)', async ({ needs }) => {
    needs(noBwrap);
    expect(
      await statusAfter(
        'mkdir -p /home/u /var/junk /etc/junk && echo x > /home/u/x && echo x > /var/junk/x && echo x > /etc/junk/x && echo x > /root/x && rm /root/r.txt && echo y > /proj/y.txt',
      ),
    ).toEqual([c('??', 'proj/y.txt')]);
  });

  it('reads a top-level .gitignore (upstream docker.gitignore) into the ignored set', () => {
    expect([...parseTopLevelIgnore('# comment\n/bin\nboot/\n\n  etc  \n.dockerenv\n')]).toEqual([
      'bin',
      'boot',
      'etc',
      '.dockerenv',
    ]);
    const upstream = join(MIRROR, 'docker', 'docker.gitignore');
    if (existsSync(upstream)) {
      expect([...parseTopLevelIgnore(readFileSync(upstream, 'utf8'))].sort()).toEqual(
        [...UPSTREAM_IGNORED].sort(),
      );
    }
  });
});
