import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostPython } from '../../src/sandbox/host-python.js';
import { MountHelper } from '../../src/sandbox/overlay/mount-helper.js';

// The mount helper is a Python program run on the host (as root when intercode is): what it imports
// and what it can read of its own environment must not depend on the folder intercode was started
// in or on the user's environment. Python puts the current directory first on `sys.path` for
// `python -c`, so a `selectors.py` there ran in the helper's place (it did, before `-I`).

const STDLIB_NAMES = ['selectors', 'json', 'subprocess', 'ctypes', 'hashlib', 'resource'];

let folder: string;
let marker: string;
let cwd: string;
const saved = { PYTHONPATH: process.env.PYTHONPATH, secret: process.env.INTERCODE_TEST_HELPER_SECRET };
const secret = `helper-secret-${randomBytes(8).toString('hex')}`;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'intercode-host-python-'));
  marker = join(folder, 'imported');
  for (const name of STDLIB_NAMES) {
    writeFileSync(
      join(folder, `${name}.py`),
      `open(${JSON.stringify(marker)}, 'a').write(${JSON.stringify(`${name}\n`)})\nraise SystemExit(3)\n`,
    );
  }
  cwd = process.cwd();
  process.chdir(folder);
  process.env.PYTHONPATH = folder;
  process.env.INTERCODE_TEST_HELPER_SECRET = secret;
});

afterEach(() => {
  process.chdir(cwd);
  for (const [name, value] of [
    ['PYTHONPATH', saved.PYTHONPATH],
    ['INTERCODE_TEST_HELPER_SECRET', saved.secret],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(folder, { recursive: true, force: true });
});

describe('host-side Python programs', () => {
  it('the mount helper imports the standard library whatever the current folder and PYTHONPATH hold', async () => {
    const helper = await MountHelper.start(hostPython());
    try {
      const pong = await helper.request({ op: 'ping' });
      expect(typeof pong.pid).toBe('number');
      expect(existsSync(marker) ? readFileSync(marker, 'utf8') : 'nothing imported').toBe('nothing imported');
      // Only what it needs of the environment: the secret and PYTHONPATH stay out.
      const environ = readFileSync(`/proc/${pong.pid}/environ`, 'latin1').split('\0');
      expect(environ.some((entry) => entry.includes(secret))).toBe(false);
      expect(environ.some((entry) => entry.startsWith('PYTHONPATH='))).toBe(false);
      expect(environ.some((entry) => entry.startsWith('PATH='))).toBe(true);
    } finally {
      await helper.close();
    }
  });
});
