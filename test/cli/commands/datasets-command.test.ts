import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { UPSTREAM_COMMIT } from '../../../src/datasets/upstream-manifest.js';
import { it } from '../../support/fixtures.js';
import { filesUnder } from '../../support/mirror-files.js';
import { MIRROR } from '../../support/project.js';

// `intercode datasets` through the compiled CLI, in an empty cache of the file's own, pulling from
// the local mirror.

describe('intercode datasets', () => {
  it('lists every id with env, task count, status and description', ({ cache, cli }) => {
    const result = cli.run(['datasets', 'list']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^id\s+env\s+tasks\s+status\s+description$/);
    expect(lines.find((line) => line.startsWith('nl2bash/fs1 '))).toMatch(
      /^nl2bash\/fs1\s+bash\s+60\s+not cached\s+NL2Bash/,
    );
    expect(lines.find((line) => line.startsWith('demo/bash '))).toMatch(/\sbash\s+\d+\s+built-in\s/);
    expect(lines.find((line) => line.startsWith('bird/dev '))).toMatch(/\s338\s+unavailable\s/);
    expect(result.stdout).toContain(`cache: ${join(cache, 'datasets', UPSTREAM_COMMIT)}`);
    expect(cli.run(['datasets']).stdout).toBe(result.stdout);
  });

  it('pulls the files of an id from the mirror, verified, and then lists it as cached', ({ cache, cli }) => {
    const pulled = cli.run(['datasets', 'pull', 'nl2bash/fs1']);
    expect(pulled.stderr).toBe('');
    expect(pulled.status).toBe(0);
    expect(pulled.stdout).toContain(
      `fetched data/nl2bash/nl2bash_fs_1.json (13.3 KiB) from mirror ${MIRROR}`,
    );
    expect(pulled.stdout).toMatch(
      /nl2bash\/fs1: 60 tasks, 3 files \(.*\) verified: 3 fetched, 0 already cached/,
    );
    const root = join(cache, 'datasets', UPSTREAM_COMMIT);
    expect(filesUnder(root)).toEqual([
      'data/nl2bash/nl2bash_fs_1.json',
      'docker/bash_scripts/setup_nl2b_fs_1.sh',
      'docker/docker.gitignore',
    ]);
    const again = cli.run(['datasets', 'pull', 'nl2bash/fs1', 'demo/bash']);
    expect(again.status).toBe(0);
    expect(again.stdout).toBe(
      'nl2bash/fs1: 60 tasks, 3 files (17.3 KiB) verified: 0 fetched, 3 already cached\ndemo/bash: built in, nothing to download\n',
    );
    const listed = cli.run(['datasets', 'list', '--json']);
    expect(listed.status).toBe(0);
    const rows = JSON.parse(listed.stdout) as { id: string; status: string; tasks: number }[];
    expect(rows.find((row) => row.id === 'nl2bash/fs1')).toMatchObject({ status: 'cached', tasks: 60 });
    expect(rows.find((row) => row.id === 'nl2bash')).toMatchObject({ status: 'partly cached', tasks: 200 });
  });

  it('rejects an unknown id with one line naming the known ids, exit 1, before downloading anything', ({
    cache,
    cli,
  }) => {
    const result = cli.run(['datasets', 'pull', 'nope', 'spider/dev']);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^intercode: unknown dataset "nope" \(known: bird\/dev, .*wikisql\/dev\)\n$/,
    );
    expect(existsSync(join(cache, 'datasets', UPSTREAM_COMMIT, 'data/sql'))).toBe(false);
  });

  it('fails in one line, exit 1, when the mirror lacks a file', ({ cli, tempDir }) => {
    const result = cli.run(['datasets', 'pull', 'wikisql/dev'], {
      env: { INTERCODE_DATA_MIRROR: tempDir('empty-mirror') },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^intercode: mirror \S+ has no data\/sql\/wikisql\/ic_wikisql_dev\.(json|sql)\n$/,
    );
  });
});
