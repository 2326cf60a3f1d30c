import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { debianImageChecks } from '../../../src/cli/doctor/machine-checks.js';
import { debianImagePaths } from '../../../src/sandbox/images/debian-image.js';
import { rootProfile } from '../../../src/sandbox/images/image-profiles.js';
import { EnvVars } from '../../support/env-vars.js';
import { TempDirs } from '../../support/temp-dirs.js';

it("says which datasets run on each Debian image, and on what until it is built (doctor's image lines)", () => {
  const vars = new EnvVars();
  const dirs = new TempDirs();
  try {
    vars.set('INTERCODE_CACHE_DIR', dirs.make('doctor-cache'));
    const detail = (name: string) => debianImageChecks().find((item) => item.name === name)?.detail;
    expect(detail('image debian:bash')).toBe(
      'not built: the nl2bash datasets run on the host image until it is',
    );
    expect(detail('image debian:python')).toBe('not built');
    const { dir, key } = debianImagePaths(rootProfile('bash'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'complete'), '');
    expect(detail('image debian:bash')).toBe(`built (key ${key}): the nl2bash datasets run on it`);
  } finally {
    vars.restore();
    dirs.removeAll();
  }
});
