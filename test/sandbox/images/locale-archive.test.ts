import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildLocaleFolder, builtLocaleFolder } from '../../../src/sandbox/images/locale-archive.js';

// The host image's locale folder (locale-archive.ts) from copies of the host's /usr/lib/locale: built
// when the folder has C.utf8 and no archive, refused when the folder or its archive is a link (localedef
// would write through it into the host's file). The suite's machine is Debian 12 (libc-bin: C.utf8, localedef).

const made: string[] = [];
const temp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'locale-archive-'));
  made.push(dir);
  return dir;
};

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function hostCopy(): string {
  const folder = join(temp(), 'locale');
  cpSync('/usr/lib/locale/C.utf8', join(folder, 'C.utf8'), { recursive: true });
  return folder;
}

describe('the host image’s locale folder', () => {
  it('is a copy of the host folder whose archive holds C.utf8', () => {
    const image = temp();
    const built = buildLocaleFolder(image, hostCopy());
    expect(built).toBe(join(image, 'locale', 'usr/lib/locale'));
    expect(builtLocaleFolder(image)).toBe(built);
    expect(existsSync(join(built!, 'C.utf8', 'LC_CTYPE'))).toBe(true);
    expect(readFileSync(join(built!, 'locale-archive')).length).toBeGreaterThan(100_000);
  });

  it('is not made from a folder that is a link, or whose archive is one (nothing written through it)', () => {
    // A valid archive without C.utf8 (added, then deleted): what localedef would add to through a link.
    const other = temp();
    mkdirSync(join(other, 'usr/lib/locale'), { recursive: true });
    for (const args of [
      ['--add-to-archive', '/usr/lib/locale/C.utf8'],
      ['--delete-from-archive', 'C.utf8'],
    ]) {
      expect(spawnSync('localedef', ['--prefix', other, ...args]).status).toBe(0);
    }
    const target = join(other, 'usr/lib/locale/locale-archive');
    const before = readFileSync(target);
    const withLink = hostCopy();
    symlinkSync(target, join(withLink, 'locale-archive'));
    const image = temp();
    expect(buildLocaleFolder(image, withLink)).toBeNull();
    expect(readFileSync(target).equals(before)).toBe(true);
    const linked = join(temp(), 'linked');
    symlinkSync(hostCopy(), linked);
    expect(buildLocaleFolder(image, linked)).toBeNull();
    expect(builtLocaleFolder(image)).toBeNull();
  });

  it('is not made when the host folder’s own archive holds C.utf8 already', () => {
    const host = hostCopy();
    const prefix = temp();
    mkdirSync(join(prefix, 'usr/lib/locale'), { recursive: true });
    expect(
      spawnSync('localedef', ['--prefix', prefix, '--add-to-archive', join(host, 'C.utf8')]).status,
    ).toBe(0);
    cpSync(join(prefix, 'usr/lib/locale/locale-archive'), join(host, 'locale-archive'));
    const image = temp();
    expect(buildLocaleFolder(image, host)).toBeNull();
    expect(builtLocaleFolder(image)).toBeNull();
  });

  it('is not made when the host has no C.utf8 folder', () => {
    const image = temp();
    expect(buildLocaleFolder(image, temp())).toBeNull();
    expect(builtLocaleFolder(image)).toBeNull();
  });
});
