import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect } from 'vitest';
import { BwrapProvider } from '../../src/sandbox/index.js';
import { it } from '../support/fixtures.js';
import { bwrapMissing } from '../support/missing-components.js';
import { PROBE, resetsOf as resets } from './bwrap-probe.js';

// A bwrap reset renews the sandbox around its running shell when it can (`renew-root.py`): the
// state it leaves must be a new sandbox's, byte for byte, and anything a new sandbox would not
// hold (a socket, an IPC object, a changed controller) must make it start a new bwrap instead.
// Real sandboxes on the `host` image (util-linux and Python come from the host's /usr).
const provider = new BwrapProvider();
const noBwrap = await bwrapMissing();

afterAll(async () => {
  await provider.close();
});

/** The host's shared memory (tmpfs pages among them), bytes. */
function shmemBytes(): number {
  return Number(/^Shmem:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]) * 1024;
}

describe('bwrap reset in place', () => {
  it('leaves exactly the state of a new sandbox, whatever the episode did', async ({ needs }) => {
    needs(noBwrap);
    const sandbox = await provider.create({ cwd: '/tmp' });
    try {
      const session = sandbox.session();
      // Its first command sees the sandbox as bwrap started it.
      const fresh = (await session.run(PROBE)).output;
      expect(fresh).toContain('pid 2 4');
      const episode = await session.run(
        [
          'echo data > /tmp/left; mkdir -p /root/made; rm -f /etc/hostname',
          'export LEAK=1; leak() { :; }; alias ll=ls; umask 077; set -o noglob; cd /root/made',
          'sleep 300 & setsid sleep 300 < /dev/null > /dev/null 2>&1 &',
          '( ( sleep 300 & ) & ); nohup sleep 300 > /dev/null 2>&1 &',
          'echo x > /dev/shm/shared; touch /dev/planted',
          'for i in $(seq 30); do true & done; wait; echo ran',
        ].join('; '),
      );
      expect(episode.output).toContain('ran');
      await sandbox.reset();
      expect(await resets(sandbox)).toMatchObject({ inPlace: 1, relaunched: 0 });
      expect((await session.run(PROBE)).output).toBe(fresh);
      // Twice in a row, and with nothing done in between.
      await session.run('echo again > /tmp/again; cd /');
      await sandbox.reset();
      await sandbox.reset();
      expect(await resets(sandbox)).toMatchObject({ inPlace: 3, relaunched: 0 });
      expect((await session.run(PROBE)).output).toBe(fresh);
      expect(await sandbox.diff()).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it('ends the sandbox’s other shells and processes, and keeps its diff and digests working', async ({
    needs,
  }) => {
    needs(noBwrap);
    const sandbox = await provider.create({});
    try {
      const other = await sandbox.openSession();
      await other.run('echo other > /tmp/other');
      if (!sandbox.spawn) throw new Error('a bwrap sandbox spawns processes');
      const spawned = await sandbox.spawn(['sleep', '300']);
      await sandbox.session().run('echo main > /tmp/main');
      await sandbox.reset();
      expect(await spawned.exited).not.toBe(0);
      await expect(other.run('true')).rejects.toThrow(/closed/);
      expect(await resets(sandbox)).toMatchObject({ inPlace: 1 });
      expect(await sandbox.diff()).toEqual([]);
      await sandbox.session().run('echo new > /tmp/new');
      expect(await sandbox.diff()).toEqual([{ path: '/tmp/new', kind: 'added', type: 'file' }]);
      expect(await sandbox.digest(['/tmp/new', '/tmp/main'])).toEqual({
        '/tmp/new': expect.stringMatching(/^file:/),
        '/tmp/main': null,
      });
    } finally {
      await sandbox.close();
    }
  });

  it('renews the controller of a deterministic sandbox in its own process: its /dev/shm and clock are a new one’s', async ({
    needs,
  }) => {
    needs(noBwrap);
    // libfaketime (deterministic mode) is not preloaded into the controller, which exports it for the
    // programs it starts: it makes no clock files in /dev/shm at its start that a renewal's new /dev
    // would lack, and it goes back to the start of its script.
    expect(
      provider.clockLibrary('host'),
      'libfaketime on the host (Debian package libfaketime)',
    ).not.toBeNull();
    const sandbox = await provider.create({ deterministic: { clockMs: Date.UTC(2023, 5, 1, 12) } });
    try {
      const shm = 'ls /dev/shm; date +%F; echo "$LD_PRELOAD"; declare -p LD_PRELOAD';
      const fresh = (await sandbox.session().run(shm)).output;
      const library = provider.clockLibrary('host');
      expect(fresh).toBe(
        `${fresh.split('\n')[0]}\n${fresh.split('\n')[1]}\n2023-06-01\n${library}\ndeclare -x LD_PRELOAD="${library}"\n`,
      );
      expect(fresh).toMatch(/^faketime_shm_(\d+)\nsem\.faketime_sem_\1\n/);
      expect(fresh).not.toMatch(/faketime_shm_2\n/);
      const probe = (await sandbox.session().run(PROBE)).output;
      await sandbox.session().run('sleep 1.2; export LEAK=1; cd /tmp');
      await sandbox.reset();
      expect(await resets(sandbox)).toMatchObject({ inPlace: 1 });
      expect((await sandbox.session().run(shm)).output).toBe(fresh);
      // The rest of what a command sees too (the controller carried its baseline across its start).
      expect((await sandbox.session().run(PROBE)).output).toBe(probe);
    } finally {
      await sandbox.close();
    }
  });

  it('frees each episode’s files: no old root is kept alive', async ({ needs }) => {
    needs(noBwrap);
    // An old root kept by any process of the sandbox (bwrap's init in the initial directory, say)
    // would keep its 200 MB of tmpfs pages: the host's shared memory would grow by that much.
    const sandbox = await provider.create({ cwd: '/tmp' });
    try {
      const before = shmemBytes();
      for (let i = 0; i < 3; i += 1) {
        await sandbox.session().run('head -c 200000000 /dev/zero > /tmp/big; cd /tmp');
        await sandbox.reset();
      }
      expect(await resets(sandbox)).toMatchObject({ inPlace: 3, relaunched: 0 });
      expect(shmemBytes() - before).toBeLessThan(100_000_000);
    } finally {
      await sandbox.close();
    }
  });

  it('renews in place when not run as root too (the mount helper in a user namespace of its own)', async ({
    needs,
  }) => {
    needs(noBwrap);
    // As `nobody`, with a home of its own: the helper cannot return to the host's pid namespace, so
    // it forks twice to reach the sandbox's.
    const home = mkdtempSync(join(tmpdir(), 'intercode-nobody-'));
    chownSync(home, 65534, 65534);
    try {
      const script = fileURLToPath(new URL('../fixtures/bwrap-renew-as-user.js', import.meta.url));
      const output = execFileSync(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, script, PROBE],
        {
          env: { PATH: process.env.PATH ?? '', HOME: home, INTERCODE_CACHE_DIR: join(home, 'cache') },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
          timeout: 120_000,
        },
      );
      const result = JSON.parse(output) as { uid: number; fresh: string; after: string; resets: unknown };
      expect(result.uid).toBe(65534);
      expect(result.resets).toMatchObject({ inPlace: 1, relaunched: 0 });
      expect(result.fresh).toContain('pid 2 4');
      expect(result.after).toBe(result.fresh);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('is reported by the provider’s check (intercode doctor), as a warning when missing', async () => {
    const item = (await provider.check()).items.find((entry) => entry.name === 'resets in place');
    expect(item).toMatchObject({ ok: true, optional: true });
    expect(item?.detail).toMatch(/renews the sandbox/);
  });

  const refusals: readonly [string, string, RegExp][] = [
    [
      'a TCP connection in TIME_WAIT',
      `/usr/bin/python3 -c "
import socket
a = socket.socket(); a.bind(('127.0.0.1', 8000)); a.listen()
b = socket.create_connection(('127.0.0.1', 8000)); c, _ = a.accept()
c.close(); b.close(); a.close()"`,
      /socket/,
    ],
    ['a System V shared memory segment', 'ipcmk -M 4096 > /dev/null', /System V shm/],
    ['a System V semaphore', 'ipcmk -S 1 > /dev/null', /System V sem/],
    [
      'a POSIX message queue',
      `/usr/bin/python3 -c "
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
assert libc.mq_open(b'/left', os.O_CREAT | os.O_RDWR, 0o600, None) >= 0"`,
      /POSIX message queue/,
    ],
    ['lowered limits of the controller', 'prlimit --pid 2 --nofile=64:64', /limits or scheduling/],
    ['a lower priority of the controller', 'renice -n 7 -p 2 > /dev/null', /limits or scheduling/],
    ['a narrower CPU set of the controller', 'taskset -p -c 0 2 > /dev/null', /limits or scheduling/],
    ['an idle I/O class of the controller', 'ionice -c 3 -p 2', /limits or scheduling/],
  ];
  for (const [what, command, why] of refusals) {
    it(`starts a new sandbox instead when the episode left ${what}`, async ({ needs }) => {
      needs(noBwrap);
      const sandbox = await provider.create({});
      try {
        const fresh = (await sandbox.session().run(PROBE)).output;
        const left = await sandbox.session().run(`${command}; echo "exit $?"`);
        expect(left.output).toContain('exit 0');
        await sandbox.reset();
        const after = await resets(sandbox);
        expect(after).toMatchObject({ inPlace: 0, relaunched: 1 });
        expect(after?.lastRefusal).toMatch(why);
        expect((await sandbox.session().run(PROBE)).output).toBe(fresh);
        // The new sandbox is clean: the next reset is done in place again.
        await sandbox.reset();
        expect(await resets(sandbox)).toMatchObject({ inPlace: 1, relaunched: 1 });
      } finally {
        await sandbox.close();
      }
    });
  }
});
