import { afterAll, describe, expect } from 'vitest';
import { BwrapProvider } from '../../src/sandbox/index.js';
import { it } from '../support/fixtures.js';
import { bwrapMissing } from '../support/missing-components.js';
import { PROBE, resetsOf as resets, withSandbox } from './bwrap-probe.js';

// A trusted bwrap reset (`reset({ trusted: true })`, an evaluator's after its gold) keeps the sandbox
// as it is under its shell when nothing of it changed that a renewal would replace
// (`keep-in-place.py`), and renews it otherwise: either way the state it leaves must be a new
// sandbox's, byte for byte. Real sandboxes on the `host` image, as in bwrap-renew-in-place.test.ts.
const provider = new BwrapProvider();
const noBwrap = await bwrapMissing();

afterAll(async () => {
  await provider.close();
});

/** Commands that read the sandbox and run processes but change nothing a renewal would replace. */
const READ_ONLY = [
  'ls -R /etc > /dev/null 2>&1; cat /etc/os-release > /dev/null; cd /tmp; export KEPT=1; kept() { :; }',
  'sleep 300 & ( sleep 300 & ) ; for i in $(seq 20); do true & done; wait $!; umask 077; echo read',
].join('; ');

describe('bwrap trusted reset', () => {
  it('keeps a sandbox a read-only episode left unchanged: a new sandbox’s state, pids numbered anew', async ({
    needs,
  }) => {
    needs(noBwrap);
    await withSandbox(provider, { cwd: '/tmp' }, async (sandbox) => {
      const session = sandbox.session();
      const fresh = (await session.run(PROBE)).output;
      expect(fresh).toContain('pid 2 4');
      // Another shell's state files in /dev go as that shell does.
      await (await sandbox.openSession()).run('true');
      expect((await session.run(READ_ONLY)).output).toContain('read');
      await sandbox.reset({ trusted: true });
      expect(await resets(sandbox)).toEqual({ inPlace: 1, kept: 1, relaunched: 0 });
      expect((await session.run(PROBE)).output).toBe(fresh);
      // Again, and with nothing run in between.
      await session.run(READ_ONLY);
      await sandbox.reset({ trusted: true });
      await sandbox.reset({ trusted: true });
      expect(await resets(sandbox)).toEqual({ inPlace: 3, kept: 3, relaunched: 0 });
      expect((await session.run(PROBE)).output).toBe(fresh);
      expect(await sandbox.diff()).toEqual([]);
      // A reset that is not trusted renews, whatever ran.
      await session.run(READ_ONLY);
      await sandbox.reset();
      expect(await resets(sandbox)).toEqual({ inPlace: 4, kept: 3, relaunched: 0 });
      expect((await session.run(PROBE)).output).toBe(fresh);
    });
  });

  it('keeps a deterministic sandbox too: its /dev/shm and clock are a new one’s', async ({ needs }) => {
    needs(noBwrap);
    await withSandbox(provider, { deterministic: { clockMs: Date.UTC(2023, 5, 1, 12) } }, async (sandbox) => {
      const shm = 'ls /dev/shm; date +%F; echo "pid $$"';
      const fresh = (await sandbox.session().run(shm)).output;
      // The controller (pid 2) has no libfaketime of its own: /dev/shm holds the clock files of `ls` only.
      expect(fresh).toMatch(/^faketime_shm_(\d+)\nsem\.faketime_sem_\1\n2023-06-01\npid 2\n$/);
      expect(fresh).not.toMatch(/faketime_shm_2\n/);
      await sandbox.session().run('sleep 1; date > /dev/null & wait');
      await sandbox.reset({ trusted: true });
      expect(await resets(sandbox)).toMatchObject({ inPlace: 1, kept: 1 });
      expect((await sandbox.session().run(shm)).output).toBe(fresh);
    });
  });

  // What a renewal replaces (the sandbox is renewed), and what it cannot (IPC objects: a new bwrap).
  const changes: readonly [string, string, RegExp, 'renewed' | 'relaunched'][] = [
    ['a file written', 'echo x > /tmp/written', /writable layer holds files/, 'renewed'],
    ['a folder made and removed', 'mkdir /tmp/d && rmdir /tmp/d', /writable layer holds files/, 'renewed'],
    ['the root’s mode', 'chmod 700 /', /root folder changed/, 'renewed'],
    ['the root’s times', 'touch -d 2001-01-01 /', /root folder changed/, 'renewed'],
    ['a new entry in /dev', 'touch /dev/planted', /\/dev\/planted is new/, 'renewed'],
    [
      'a link of /dev replaced',
      'rm /dev/stdin && ln -s /proc/self/fd/1 /dev/stdin',
      /\/dev\/stdin changed/,
      'renewed',
    ],
    ['a link of /dev removed', 'rm /dev/core', /\/dev\/core is gone/, 'renewed'],
    ['the mode of /dev/shm', 'chmod 1777 /dev/shm', /\/dev\/shm changed/, 'renewed'],
    ['a file in /dev/shm', 'echo x > /dev/shm/left', /\/dev\/shm holds left/, 'renewed'],
    ['a System V shared memory segment', 'ipcmk -M 4096 > /dev/null', /System V shm/, 'relaunched'],
    [
      'a POSIX message queue',
      `/usr/bin/python3 -c "
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
assert libc.mq_open(b'/left', os.O_CREAT | os.O_RDWR, 0o600, None) >= 0"`,
      /POSIX message queue/,
      'relaunched',
    ],
  ];
  for (const [what, command, why, then] of changes) {
    it(`does not keep a sandbox whose episode left ${what} (${then}), naming it`, async ({ needs }) => {
      needs(noBwrap);
      await withSandbox(provider, {}, async (sandbox) => {
        const fresh = (await sandbox.session().run(PROBE)).output;
        const left = await sandbox.session().run(`${command}; echo "exit $?"`);
        expect(left.output).toContain('exit 0');
        await sandbox.reset({ trusted: true });
        const after = await resets(sandbox);
        const renewed = then === 'renewed' ? 1 : 0;
        expect(after).toMatchObject({ inPlace: renewed, kept: 0, relaunched: 1 - renewed });
        // A renewal's own refusal (IPC: the same check) names the cause without the keep's prefix.
        expect(after?.lastRefusal).toMatch(then === 'renewed' ? /^not kept: / : /^(?!not kept)/);
        expect(after?.lastRefusal).toMatch(why);
        expect((await sandbox.session().run(PROBE)).output).toBe(fresh);
        // Renewed or new, it is unchanged: the next trusted reset keeps it.
        await sandbox.reset({ trusted: true });
        expect(await resets(sandbox)).toMatchObject({ inPlace: renewed + 1, kept: 1 });
      });
    });
  }

  it('renews instead when /dev/shm got an extended attribute (where tmpfs keeps user attributes)', async ({
    needs,
  }) => {
    needs(noBwrap);
    await withSandbox(provider, {}, async (sandbox) => {
      const set = await sandbox
        .session()
        .run(
          `/usr/bin/python3 -c "import os; os.setxattr('/dev/shm', 'user.left', b'1')" 2>/dev/null && echo set || echo unsupported`,
        );
      await sandbox.reset({ trusted: true });
      const after = await resets(sandbox);
      if (set.output === 'set\n') {
        expect(after).toMatchObject({ inPlace: 1, kept: 0 });
        expect(after?.lastRefusal).toMatch(/\/dev\/shm has an extended attribute/);
      } else {
        // This kernel's tmpfs keeps no user attribute: nothing changed, so the sandbox is kept.
        expect(set.output).toBe('unsupported\n');
        expect(after).toMatchObject({ inPlace: 1, kept: 1 });
      }
    });
  });
});
