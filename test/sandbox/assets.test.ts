import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { hostPython } from '../../src/sandbox/host-python.js';
import { programSource } from '../../src/sandbox/program-source.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const copyAssets = join(root, 'scripts', 'copy-assets.mjs');
/** What the build copies into dist/, as the build script itself lists it. */
const assets = execFileSync(process.execPath, [copyAssets, '--list'], { encoding: 'utf8' })
  .split('\n')
  .filter((line) => line !== '');
// py_compile writes byte code: into a folder of the test's own, never beside the sources.
const pycache = mkdtempSync(join(tmpdir(), 'intercode-pycache-'));
afterAll(() => rmSync(pycache, { recursive: true, force: true }));

/** Compiles a program without running it: the checker's exit status and what it said. */
function compile(path: string): { status: number | null; output: string } {
  const checker = path.endsWith('.py')
    ? { command: hostPython(), args: ['-m', 'py_compile', path] }
    : path.endsWith('.pl')
      ? { command: 'perl', args: ['-c', path] }
      : path.endsWith('.cjs')
        ? { command: process.execPath, args: ['--check', path] }
        : undefined;
  if (!checker) throw new Error(`no compile check for ${path}`);
  const result = spawnSync(checker.command, checker.args, {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPYCACHEPREFIX: pycache },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

describe('programs shipped as files', () => {
  it('are the programs the modules load, each beside its module', () => {
    expect(assets).toEqual([
      'envs/python/python-branches.py',
      'envs/python/python-driver-main.py',
      'envs/python/python-driver.py',
      'envs/python/python-kept-worker.py',
      'envs/python/python-values.py',
      'envs/python/python-warm-pool.py',
      'envs/python/python-worker.py',
      'envs/python/python-zygote.py',
      'sandbox/docker/keeper.pl',
      'sandbox/docker/layer-scan.py',
      'sandbox/docker/supervisor.pl',
      'sandbox/overlay/keep-in-place.py',
      'sandbox/overlay/mount-helper.py',
      'sandbox/overlay/renew-root.py',
      'sandbox/overlay/tree-walk.py',
      'sandbox/overlay/walker-server.py',
      'sql/engine/sqlite/sqlite-child.cjs',
    ]);
  });

  it.each(assets)('%s compiles', (asset) => {
    const result = compile(join(root, 'src', asset));
    expect(result.status, result.output).toBe(0);
  });

  it.each(assets)('%s is in a built dist/, the same as in src/', (asset) => {
    const built = join(root, 'dist', asset);
    expect(existsSync(built), `${built} is missing: run npm run build`).toBe(true);
    expect(readFileSync(built, 'utf8')).toBe(readFileSync(join(root, 'src', asset), 'utf8'));
  });

  it('are in the package npm would publish', () => {
    const [pack] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as [{ files: { path: string }[] }];
    const shipped = new Set(pack.files.map((file) => file.path));
    expect(assets.filter((asset) => !shipped.has(`dist/${asset}`))).toEqual([]);
  });
});

describe('programSource', () => {
  it('reads a program once and gives its text', () => {
    const url = new URL('../../src/sandbox/docker/keeper.pl', import.meta.url);
    const source = programSource(url);
    expect(source()).toBe(readFileSync(url, 'utf8'));
    expect(source()).toBe(source());
  });

  it('names a missing program in a typed error', () => {
    const source = programSource(new URL('./no-such-program.py', import.meta.url));
    expect(() => source()).toThrow(
      expect.objectContaining({
        code: 'SANDBOX_UNAVAILABLE',
        message: expect.stringContaining('no-such-program.py'),
      }),
    );
  });
});
