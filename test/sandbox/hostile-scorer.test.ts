import { afterAll, describe, expect } from 'vitest';
import { IntercodeError } from '../../src/core/errors.js';
import { BwrapProvider } from '../../src/sandbox/index.js';
import type { FileChange, Sandbox } from '../../src/sandbox/sandbox.js';
import { it } from '../support/fixtures.js';
import { bwrapMissing } from '../support/missing-components.js';

// Hostile sandboxes against the host-side scorer walks (issue 11, classes 1 and 2): processes that
// keep changing the tree while it is walked, trees too large or too deep to walk. Real bubblewrap
// sandboxes on the `host` image; the racers are Python programs started with `setsid` inside.
const provider = new BwrapProvider();
const noBwrap = await bwrapMissing();

afterAll(async () => {
  await provider.close();
});

/** Starts `source` (Python) detached from the shell: not a job of it, in a session of its own. */
async function startRacer(sandbox: Sandbox, source: string): Promise<void> {
  await sandbox.writeFile('/tmp/racer.py', source);
  const started = await sandbox
    .session()
    .run('setsid /usr/bin/python3 /tmp/racer.py </dev/null >/dev/null 2>&1 & sleep 0.3; echo started');
  expect(started.output).toBe('started\n');
}

/** `promise`, or a rejection naming `what` once `ms` have passed (a hung walk fails the test). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The walk's result, or the scorer limit it met (any other error fails the test). */
async function outcome<T>(walk: Promise<T>): Promise<T | { limit: string }> {
  try {
    return await walk;
  } catch (error) {
    if (IntercodeError.isInstance(error) && error.code === 'SANDBOX_SCORER_LIMIT') {
      return { limit: (error as unknown as { limit: string }).limit };
    }
    throw error;
  }
}

// Swaps /d/sub (a real directory holding files named as host /dev entries) with a symbolic link to
// the host's /dev, as fast as it can.
const SYMLINK_RACER = `
import os
os.makedirs('/d/sub', exist_ok=True)
for i in range(300):
    open('/d/a%03d' % i, 'w').write('x')
for name in ('zero', 'urandom', 'null', 'full'):
    open('/d/sub/' + name, 'w').write('mine')
while True:
    os.rename('/d/sub', '/d/real')
    os.symlink('/dev', '/d/sub')
    os.unlink('/d/sub')
    os.rename('/d/real', '/d/sub')
`;

// Swaps /etc/services (a file of the image, so the diff compares its content) and /etc/passwd with
// FIFOs of the same mode, as fast as it can.
const FIFO_RACER = `
import os
data = {p: open(p, 'rb').read() for p in ('/etc/services', '/etc/passwd')}
while True:
    for p, content in data.items():
        with open(p + '.new', 'wb') as f:
            f.write(content)
        os.chmod(p + '.new', 0o644)
        os.rename(p + '.new', p)
        os.mkfifo(p + '.fifo', 0o644)
        os.rename(p + '.fifo', p)
`;

describe('the scorer against processes that change the tree while it is walked', () => {
  it('never follows a directory swapped with a symbolic link to the host /dev, never hangs on /dev/zero', async ({
    needs,
  }) => {
    needs(noBwrap);
    const sandbox = await provider.create({ image: 'host' });
    try {
      await startRacer(sandbox, SYMLINK_RACER);
      const ends = performance.now() + 4_000;
      let walks = 0;
      while (performance.now() < ends) {
        // Without quiesce(): the walk itself must hold against the race.
        const diff = await outcome(within(sandbox.diff(), 20_000, 'diff()'));
        if (Array.isArray(diff)) {
          const below = (diff as FileChange[]).filter((change) => change.path.startsWith('/d/sub/'));
          for (const change of below) {
            expect(['/d/sub/full', '/d/sub/null', '/d/sub/urandom', '/d/sub/zero']).toContain(change.path);
            expect(change.type, `${change.path} is the sandbox's file, not the host's device`).toBe('file');
          }
        } else {
          expect(diff.limit).toBe('changed');
        }
        const digests = await outcome(within(sandbox.digest(['/d', '/d/sub/zero']), 20_000, 'digest()'));
        if (!('limit' in digests)) {
          const zero = digests['/d/sub/zero'];
          // The sandbox's own four-byte file, or (while the link is there) nothing: never a device.
          if (zero !== null && zero !== undefined) expect(zero).toMatch(/^file:|^link:/);
        } else {
          expect(digests.limit).toBe('changed');
        }
        walks += 1;
      }
      expect(walks).toBeGreaterThan(5);
    } finally {
      await sandbox.close();
    }
  }, 120_000);

  it('never blocks on a file swapped with a FIFO', async ({ needs }) => {
    needs(noBwrap);
    const sandbox = await provider.create({ image: 'host' });
    try {
      await startRacer(sandbox, FIFO_RACER);
      const ends = performance.now() + 4_000;
      let walks = 0;
      while (performance.now() < ends) {
        const diff = await outcome(within(sandbox.diff(), 20_000, 'diff()'));
        if ('limit' in diff) expect(diff.limit).toBe('changed');
        const digests = await outcome(
          within(sandbox.digest(['/etc/services', '/etc/passwd', '/etc']), 20_000, 'digest()'),
        );
        if ('limit' in digests) expect(digests.limit).toBe('changed');
        walks += 1;
      }
      expect(walks).toBeGreaterThan(5);
    } finally {
      await sandbox.close();
    }
  }, 120_000);

  it('quiesce() stops every process of the sandbox, setsid ones included, and resume() lets them go on', async ({
    needs,
  }) => {
    needs(noBwrap);
    const sandbox = await provider.create({ image: 'host' });
    try {
      await startRacer(
        sandbox,
        "import os, time\nn = 0\nwhile True:\n    n += 1\n    open('/tmp/count', 'w').write(str(n))\n    os.replace('/tmp/count', '/tmp/last')\n    time.sleep(0.001)\n",
      );
      const stopped = await sandbox.quiesce();
      const first = await sandbox.digest(['/tmp/last']);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const second = await sandbox.digest(['/tmp/last']);
      expect(first['/tmp/last']).toMatch(/^file:/);
      expect(second).toEqual(first);
      await stopped.resume();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await sandbox.digest(['/tmp/last']))['/tmp/last']).not.toBe(first['/tmp/last']);
      // The shell was stopped too and still answers.
      expect((await sandbox.session().run('echo alive')).output).toBe('alive\n');
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});

describe('the scorer against trees too large or too deep', () => {
  it('walks 2,000 nested directories without a recursion error', async ({ needs }) => {
    needs(noBwrap);
    const sandbox = await provider.create({ image: 'host' });
    try {
      const made = await sandbox.exec(
        "/usr/bin/python3 -c \"import os\nos.chdir('/tmp')\nfor _ in range(2000):\n    os.mkdir('n')\n    os.chdir('n')\nopen('leaf', 'w').write('x')\"",
      );
      expect(made.exitCode).toBe(0);
      const diff = await sandbox.diff();
      const deep = diff.filter((change) => change.path.startsWith('/tmp/n'));
      expect(deep).toHaveLength(2001);
      expect(deep.every((change) => change.kind === 'added')).toBe(true);
      const digests = await sandbox.digest(['/tmp/n', '/tmp']);
      expect(digests['/tmp/n']).toMatch(/^dir:[0-9a-f]{32}$/);
      // A copy of the tree (other inodes, same names and contents) hashes the same.
      expect((await sandbox.exec('cp -a /tmp/n /tmp/c && echo ok', { timeoutMs: 60_000 })).output).toBe(
        'ok\n',
      );
      expect((await sandbox.digest(['/tmp/c']))['/tmp/c']).toBe(digests['/tmp/n']);
    } finally {
      await sandbox.close();
    }
  }, 120_000);

  it('stops a walk past its entry bound with a scorer limit, quickly and with bounded memory', async ({
    needs,
  }) => {
    needs(noBwrap);
    const sandbox = await provider.create({ image: 'host' });
    try {
      const made = await sandbox.exec(
        "/usr/bin/python3 -c \"import os\nfor d in range(150):\n    os.makedirs('/tmp/many/%d' % d)\n    for f in range(1000):\n        open('/tmp/many/%d/%d' % (d, f), 'w').close()\"",
        { timeoutMs: 60_000 },
      );
      expect(made.exitCode).toBe(0);
      const started = performance.now();
      const rss = process.memoryUsage().rss;
      await expect(sandbox.diff()).rejects.toMatchObject({ code: 'SANDBOX_SCORER_LIMIT', limit: 'entries' });
      await expect(sandbox.digest(['/tmp/many'])).rejects.toMatchObject({
        code: 'SANDBOX_SCORER_LIMIT',
        limit: 'entries',
      });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(process.memoryUsage().rss - rss).toBeLessThan(100 * 1024 * 1024);
    } finally {
      await sandbox.close();
    }
  }, 180_000);

  it('kills a walk at its deadline, while the shared helper keeps serving other sandboxes', async ({
    needs,
    setEnv,
  }) => {
    needs(noBwrap);
    const slow = await provider.create({ image: 'host' });
    const other = await provider.create({ image: 'host' });
    try {
      const made = await slow.exec('head -c 400000000 /dev/zero > /tmp/big && echo ok', {
        timeoutMs: 60_000,
      });
      expect(made.output).toBe('ok\n');
      await other.exec('echo hi > /tmp/other');
      setEnv('INTERCODE_SCORER_TIMEOUT_MS', '50');
      const digest = slow.digest(['/tmp/big']);
      digest.catch(() => {});
      setEnv('INTERCODE_SCORER_TIMEOUT_MS', undefined);
      // The other sandbox's walk is answered while the slow one still runs (or has just been stopped).
      const started = performance.now();
      expect(await other.diff()).toContainEqual({ path: '/tmp/other', kind: 'added', type: 'file' });
      expect(performance.now() - started).toBeLessThan(2_000);
      await expect(digest).rejects.toMatchObject({ code: 'SANDBOX_SCORER_LIMIT', limit: 'time' });
      // The helper is fine afterwards.
      expect((await slow.diff()).map((change) => change.path)).toContain('/tmp/big');
    } finally {
      await Promise.all([slow.close(), other.close()]);
    }
  }, 120_000);
});
