import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostPython } from '../../../src/sandbox/host-python.js';
import { programSource } from '../../../src/sandbox/program-source.js';

// layer-scan.py runs on the host over a layer directory (docker-images.ts): here over folders of
// the test's own, as a user's process would run it.
const root = mkdtempSync(join(tmpdir(), 'intercode-layer-scan-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const source = programSource(new URL('../../../src/sandbox/docker/layer-scan.py', import.meta.url));

function scan(layer: string): { whiteouts: string[]; opaque: string[]; entries: string[] } {
  return JSON.parse(
    execFileSync(hostPython(), ['-c', source(), layer], { encoding: 'utf8', maxBuffer: 1 << 28 }),
  );
}

describe('layer-scan.py', () => {
  it('lists every entry, parents first, without following a symbolic link to a directory', () => {
    const layer = join(root, 'plain');
    mkdirSync(join(layer, 'a', 'b'), { recursive: true });
    writeFileSync(join(layer, 'a', 'b', 'f'), 'x');
    writeFileSync(join(layer, 'z'), 'z');
    symlinkSync('/etc', join(layer, 'link'));
    expect(scan(layer)).toEqual({
      whiteouts: [],
      opaque: [],
      entries: ['./a', './link', './z', './a/b', './a/b/f'],
    });
  });

  it('walks a layer 1,500 directories deep (iteratively: no recursion error)', () => {
    const layer = join(root, 'deep');
    const parts = Array.from({ length: 1500 }, () => 'd');
    mkdirSync(join(layer, ...parts), { recursive: true });
    writeFileSync(join(layer, ...parts, 'f'), 'x');
    const { entries } = scan(layer);
    expect(entries).toHaveLength(1501);
    expect(entries.at(-1)).toBe(`./${[...parts, 'f'].join('/')}`);
  });
});
