import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ensureDebianImage, type Sandbox } from '../../src/sandbox/index.js';
import { suiteSandbox } from '../support/suite-sandbox.js';

// Every sandbox runs with LANG=C.UTF-8; the host and debian images hold that locale in the locale
// archive too (`locale-archive.ts`, the debian recipe's customize hook), so a program maps one
// file instead of opening a dozen. The archive must change nothing a command sees: each locale-
// sensitive command below prints the same with the archive as with the locale's folder
// (LOCPATH makes glibc skip the archive).

const SENSITIVE = [
  "printf 'é\\n' | wc -m",
  'locale charmap',
  "printf 'b\\nÄ\\na\\né\\nB\\n_x\\nz\\n' | sort",
  "printf 'déjà vu ÉTÉ\\n' | tr '[:lower:]' '[:upper:]'",
  "printf 'Straße\\n' | grep -o '[[:alpha:]]*'",
  "printf 'ñ x\\n' | awk '{ print length($1), toupper($1) }'",
  'ls -d /usr/lib/locale/C.utf8 && printf \'%s\\n\' "$LANG"',
];

async function mapsArchive(sandbox: Sandbox): Promise<boolean> {
  const result = await sandbox.session().run('grep -c /usr/lib/locale/locale-archive /proc/self/maps');
  return result.output.trim() === '1';
}

async function outputs(sandbox: Sandbox, prefix: string): Promise<string[]> {
  const shown: string[] = [];
  for (const command of SENSITIVE) {
    const result = await sandbox.session().run(`${prefix}${command}`);
    shown.push(`${result.exitCode}:${result.output}`);
  }
  return shown;
}

describe.each([
  ['host', 'host'],
  ['debian (bash profile)', 'debian'],
])('the C.UTF-8 locale in the %s image', (_name, image) => {
  const sandbox = suiteSandbox({ image }, async () => {
    if (image === 'debian') await ensureDebianImage('bash');
  });

  it('is read from the locale archive, also after a reset', async () => {
    // The host machine of the suite is Debian 12, whose libc-bin ships the C.utf8 folder.
    expect(existsSync('/usr/lib/locale/C.utf8')).toBe(true);
    expect(await mapsArchive(sandbox())).toBe(true);
    await sandbox().reset();
    expect(await mapsArchive(sandbox())).toBe(true);
  });

  it('shows commands what the locale folder shows them', async () => {
    const fromArchive = await outputs(sandbox(), '');
    const fromFolder = await outputs(sandbox(), 'export LOCPATH=/usr/lib/locale; ');
    expect(fromArchive).toEqual(fromFolder);
    expect(fromArchive[0]).toBe('0:2\n');
    expect(fromArchive[1]).toBe('0:UTF-8\n');
  });
});
