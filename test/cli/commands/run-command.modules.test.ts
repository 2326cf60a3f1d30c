/**
 * A run loads the modules of its own environment kind: a SQL run loads no sandbox module (neither the
 * backends nor the image helpers; only the list of backend names its options check) and neither the
 * Bash and Python environments (a third of the CLI's modules, some 40 ms of CPU at every start). The
 * two small modules the registry's gold actions read are the exceptions.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect } from 'vitest';
import { it } from '../../support/fixtures.js';

const RECORDER = pathToFileURL(new URL('./record-modules.mjs', import.meta.url).pathname).href;

describe('intercode run: modules loaded', () => {
  it('loads no sandbox backend and no Bash or Python environment for a SQL run', ({ cli, tempDir }) => {
    const dir = tempDir('run-modules');
    const list = join(dir, 'modules.txt');
    const result = cli.run(['run', 'demo/sql', '--agent', 'gold', '--out', join(dir, 'run')], {
      env: { NODE_OPTIONS: `--import=${RECORDER}`, RECORD_MODULES: list },
    });
    expect(result.status, result.stderr).toBe(0);
    const modules = readFileSync(list, 'utf8').trim().split('\n');
    expect(modules.some((url) => url.endsWith('/dist/envs/sql/sql-env.js'))).toBe(true);
    const unneeded = modules.filter((url) =>
      /\/dist\/(sandbox\/(?!backend-names\.js)|envs\/bash\/(?!nl2bash-errata)|envs\/python\/(?!function-names))/.test(
        url,
      ),
    );
    expect(unneeded).toEqual([]);
  });
});
