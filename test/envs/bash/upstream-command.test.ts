import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { shlexSplit } from '../../../src/envs/bash/shlex-split.js';
import { simplifyPath, upstreamCommandLine } from '../../../src/envs/bash/upstream-command.js';

/** The argv upstream ran for an action: shlex.split(f'/bin/bash -c "{action.strip()}"'), from Python. */
interface UpstreamCase {
  readonly action: string;
  readonly argv: string[] | null;
}

const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/shlex-cases.json', import.meta.url), 'utf8'),
) as { upstream: UpstreamCase[] };

/** The argument vector a POSIX shell builds from a command line (bash on the host, no sandbox needed). */
function shellArgv(line: string): string[] {
  const result = spawnSync('/bin/bash', ['-c', `set -- ${line}; printf '%s\\0' "$@"`], {
    encoding: 'utf8',
  });
  expect(result.status).toBe(0);
  return result.stdout.split('\0').slice(0, -1);
}

describe('upstreamCommandLine', () => {
  it.each(fixture.upstream.map((c) => [JSON.stringify(c.action), c] as const))(
    'runs what upstream ran for %s',
    (_name, c) => {
      const line = upstreamCommandLine(c.action);
      if (c.argv === null) {
        expect(line).toBeNull();
        return;
      }
      expect(line).not.toBeNull();
      // The line is re-quoted so that a shell (and shlex) gets exactly upstream's argv back.
      expect(shlexSplit(line!)).toEqual(c.argv);
      expect(shellArgv(line!)).toEqual(c.argv);
    },
  );

  it('reproduces the quoting bug of `echo "a  b"`: bash -c runs `echo a` with $0 = b', () => {
    expect(shlexSplit(upstreamCommandLine('echo "a  b"')!)).toEqual(['/bin/bash', '-c', 'echo a', 'b']);
  });
});

describe('simplifyPath', () => {
  it.each([
    ['/', '', '/'],
    ['/demo', '', '/demo'],
    ['/', 'demo', '/demo'],
    ['/demo', 'notes', '/demo/notes'],
    ['/demo/notes', '..', '/demo'],
    ['/demo/notes', '../..', '/'],
    ['/', '..', '/'],
    ['/', '../../..', '/'],
    ['/demo', '.', '/demo'],
    ['/demo', './notes/.', '/demo/notes'],
    ['/demo', 'notes//old', '/demo/notes/old'],
    ['/demo', '//etc', '/etc'],
    ['/demo', '/usr/bin/', '/usr/bin'],
    ['/demo/notes', '/', '/'],
    ['/demo', 'a/../b/./c/..', '/demo/b'],
    ['/demo', '/a/b/../../c', '/c'],
    ['/', '~', '/~'],
    ['/demo', '~/x', '/demo/~/x'],
    ['/demo', 'a && ls', '/demo/a && ls'],
  ])('from %s, cd %j goes to %s', (current, argument, expected) => {
    expect(simplifyPath(current, argument)).toBe(expected);
  });
});
