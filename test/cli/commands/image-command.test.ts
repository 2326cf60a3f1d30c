import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { debianImageKey, rootProfile } from '../../../src/sandbox/index.js';
import { expectOneLineError } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';

// `intercode image` in an empty cache of the file's own: listing, pruning and the errors of `build`
// (nothing here builds an image).

describe('intercode image', () => {
  it('rejects an unknown profile with one line listing the known ones (exit 1)', ({ cli }) => {
    const result = cli.run(['image', 'build', 'alpine']);
    expectOneLineError(
      result,
      /unknown image profile "alpine" \(known: bash, python, ctf, nl2bash-fs1, nl2bash-fs2, nl2bash-fs3, nl2bash-fs4, all\)/,
    );
    expect(result.stdout).toBe('');
  });

  it('needs a profile to build', ({ cli }) => {
    const result = cli.run(['image', 'build']);
    expectOneLineError(result, /missing required argument 'profile'/);
  });

  it('lists every profile as not built in an empty cache, with its key (JSON and table)', ({
    cache,
    cli,
  }) => {
    const json = cli.run(['image', 'list', '--json']);
    expect(json.stderr).toBe('');
    expect(json.status).toBe(0);
    const rows = JSON.parse(json.stdout) as {
      profile: string;
      built: boolean;
      key: string | null;
      kind: string;
    }[];
    expect(rows.map((row) => row.profile)).toEqual([
      'bash',
      'python',
      'ctf',
      'nl2bash-fs1',
      'nl2bash-fs2',
      'nl2bash-fs3',
      'nl2bash-fs4',
    ]);
    expect(rows.every((row) => !row.built)).toBe(true);
    expect(rows[0]).toMatchObject({ kind: 'root', key: debianImageKey(rootProfile('bash')) });
    expect(rows[3]).toMatchObject({ kind: 'layer' });
    const table = cli.run(['image', 'list']);
    expect(table.status).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^profile\s+status\s+key\s+size\s+path$/);
    expect(table.stdout).toMatch(
      new RegExp(`^bash\\s+not built\\s+${rows[0]!.key}\\s+-\\s+${cache}/images/debian-bash-`, 'm'),
    );
  });

  it('says how to install mmdebstrap when it is missing (exit 2, one line, nothing left in the cache)', ({
    cli,
  }) => {
    const result = cli.run(['image', 'build', 'bash'], { env: { PATH: '/nonexistent' } });
    expect(result.stderr).toMatch(
      /^intercode: mmdebstrap is not installed[^\n]*apt-get install -y mmdebstrap\n$/,
    );
    expect(result.status).toBe(2);
    const list = JSON.parse(cli.run(['image', 'list', '--json']).stdout) as { built: boolean }[];
    expect(list[0]!.built).toBe(false);
  });

  it('lists and prunes images of older package lists', ({ cache, cli }) => {
    const stale = join(cache, 'images', 'debian-bash-0000000000000000');
    mkdirSync(join(stale, 'rootfs'), { recursive: true });
    expect(cli.run(['image', 'list']).stdout).toContain(
      '1 stale image folder(s) of older package lists: intercode image prune',
    );
    const result = cli.run(['image', 'prune']);
    expect(result).toMatchObject({ status: 0, stderr: '', stdout: `removed ${stale}\n` });
    expect(existsSync(stale)).toBe(false);
    expect(cli.run(['image', 'prune']).stdout).toBe('nothing to remove\n');
  });
});
