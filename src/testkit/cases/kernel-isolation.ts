import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { HOST_PYTHON_FLAGS, hostPython } from '../../sandbox/host-python.js';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';
import { marked, markedProcesses, newMarker } from '../host-processes.js';
import { waitUntil } from '../wait-until.js';

/**
 * Raw system calls from Perl, which every Debian image has (perl-base is essential; python3-minimal
 * has no ctypes, and keyutils or liburing are not installed).
 */
const PROBE = `
use strict; use POSIX ();
my %nr = (x86_64 => [248, 249, 250, 425], aarch64 => [217, 218, 219, 425]);
my ($add_key, $request_key, $keyctl, $io_uring_setup) = @{$nr{(POSIX::uname())[4]}};
my $what = shift @ARGV;
if ($what eq 'keys') {
  # syscall() passes strings as pointers and wants them writable: plain variables, no literals.
  my ($type, $desc, $mine, $one) = ("user", shift(@ARGV), "sandbox-", "x");
  $mine .= $desc;
  my $key = syscall($request_key, $type, $desc, 0, 0);
  print "request ", ($key >= 0 ? "found" : -($! + 0)), "\n";
  if ($key >= 0) {
    my $buf = "\0" x 256;
    my $n = syscall($keyctl, 11, $key, $buf, 256);
    print "payload ", substr($buf, 0, $n > 0 ? $n : 0), "\n";
  }
  my $added = syscall($add_key, $type, $mine, $one, 1, -4);
  print "add ", ($added >= 0 ? "ok" : -($! + 0)), "\n";
  my $listed = 0;
  if (open(my $fh, '<', '/proc/keys')) { while (<$fh>) { $listed = 1 if index($_, $desc) >= 0 } }
  print "proc-keys $listed\n";
} elsif ($what eq 'sockets') {
  for my $try (['packet', 17, 3, 0], ['raw-ip', 2, 3, 1]) {
    my ($label, @args) = @$try;
    print "$label ", (socket(my $s, $args[0], $args[1], $args[2]) ? "opened" : "refused " . ($! + 0)), "\n";
  }
} elsif ($what eq 'io_uring') {
  my $params = "\0" x 120;
  print "io_uring ", (syscall($io_uring_setup, 4, $params) >= 0 ? "opened" : "refused"), "\n";
}
`;

/** What the host's kernel shares with a sandbox: keyrings, capabilities, namespaces, raw sockets. */
export function kernelIsolationCases(it: ConformanceTest, context: ConformanceContext): void {
  const { processesVisible, unprivilegedHostIds } = context.options;

  describe('isolation from the host kernel', () => {
    it('cannot read a key of the host keyrings, nor add keys another sandbox could read', async ({
      sandbox,
    }) => {
      const description = `intercode-probe-${randomBytes(6).toString('hex')}`;
      const payload = `host-secret-${randomBytes(8).toString('hex')}`;
      // In this process's session keyring (or the user's, without one) and the user keyring.
      const keys = hostKeys(description, payload);
      try {
        expect(keys.length, 'keys added on the host').toBeGreaterThan(0);
        await sandbox.writeFile('/tmp/probe.pl', PROBE);
        const result = await sandbox.exec(`perl /tmp/probe.pl keys ${description}`, { timeoutMs: 20_000 });
        expect(result.exitCode, result.output).toBe(0);
        expect(result.output).not.toContain(payload);
        expect(result.output).toMatch(/^request -\d+$/m);
        expect(result.output).toMatch(/^add -\d+$/m);
        expect(result.output).toContain('proc-keys 0');
      } finally {
        dropHostKeys(keys);
      }
    });

    it('has an empty capability bounding set, no_new_privs and a seccomp filter', async ({ sandbox }) => {
      for (const result of [
        await sandbox
          .session()
          .run('grep -E "^(CapBnd|CapEff|CapPrm|NoNewPrivs|Seccomp):" /proc/self/status'),
        await sandbox.exec('grep -E "^(CapBnd|CapEff|CapPrm|NoNewPrivs|Seccomp):" /proc/self/status'),
      ]) {
        expect(result.output).toMatch(/^CapBnd:\s+0+$/m);
        expect(result.output).toMatch(/^CapEff:\s+0+$/m);
        expect(result.output).toMatch(/^CapPrm:\s+0+$/m);
        expect(result.output).toMatch(/^NoNewPrivs:\s+1$/m);
        expect(result.output).toMatch(/^Seccomp:\s+2$/m);
      }
    });

    it('cannot create namespaces (no capabilities regained in a nested user namespace)', async ({
      sandbox,
    }) => {
      const result = await sandbox
        .session()
        .run(
          [
            'unshare -U true; echo "user=$?"',
            'unshare -m true; echo "mount=$?"',
            'unshare -Um sh -c "mount -t tmpfs none /mnt && echo MOUNTED"; echo "user-mount=$?"',
            'unshare -n true; echo "net=$?"',
          ].join('; '),
        );
      for (const name of ['user', 'mount', 'user-mount', 'net']) {
        expect(result.output).toMatch(new RegExp(`^${name}=[1-9]`, 'm'));
      }
      expect(result.output).not.toContain('MOUNTED');
    });

    it('cannot open packet or raw sockets, nor an io_uring, even through a nested namespace', async ({
      sandbox,
    }) => {
      await sandbox.writeFile('/tmp/probe.pl', PROBE);
      const result = await sandbox
        .session()
        .run(
          [
            'perl /tmp/probe.pl sockets',
            'perl /tmp/probe.pl io_uring',
            'unshare -Un perl /tmp/probe.pl sockets',
          ].join('; '),
          { timeoutMs: 20_000 },
        );
      expect(result.output).toMatch(/^packet refused/m);
      expect(result.output).toMatch(/^raw-ip refused/m);
      expect(result.output).toContain('io_uring refused');
      expect(result.output).not.toContain('opened');
    });

    it("sees nothing of the host's /sys, /proc/keys or kernel log", async ({ sandbox }) => {
      const result = await sandbox
        .session()
        .run(
          'ls -A /sys | wc -l; cat /proc/keys 2>/dev/null | wc -l; dmesg >/dev/null 2>&1; echo "dmesg=$?"',
        );
      expect(result.output).toMatch(/^0\n0\ndmesg=[1-9]\d*\n$/);
    });

    it('sees the files of its image owned by root, and root can still change them', async ({ sandbox }) => {
      const result = await sandbox
        .session()
        .run(
          'id -u; stat -c "%u:%g %n" / /etc /etc/passwd; echo "probe:x:4242:4242::/:/bin/sh" >> /etc/passwd && echo appended',
        );
      expect(result.output).toBe('0\n0:0 /\n0:0 /etc\n0:0 /etc/passwd\nappended\n');
      expect(await sandbox.diff()).toContainEqual({ path: '/etc/passwd', kind: 'modified', type: 'file' });
      // Host directories bound into the image (bwrap's host image) are root's only for a root owner:
      // another user's sandbox maps only that user, and root's files show as nobody.
      if (process.getuid?.() === 0) {
        expect((await sandbox.exec('stat -c "%u:%g" /usr/bin/bash')).output).toBe('0:0\n');
      }
    });

    // Registered only where the backend promises it (docker: the daemon decides, see docs/security.md).
    if (unprivilegedHostIds)
      it.skipIf(!processesVisible)(
        'runs as an unprivileged host user: sandbox root is not host root',
        async ({ sandbox }) => {
          const marker = newMarker();
          const running = sandbox.exec(marked(marker, 'sleep 3'), { timeoutMs: 20_000 });
          try {
            const pids = await waitUntil(
              () => markedProcesses(marker),
              (found) => found.length > 0,
              { timeoutMs: 5000, intervalMs: 20 },
            );
            expect(pids.length, 'the sandbox process, seen from the host').toBeGreaterThan(0);
            for (const pid of pids) {
              const status = readFileSync(`/proc/${pid}/status`, 'utf8');
              for (const field of ['Uid', 'Gid']) {
                const ids =
                  new RegExp(`^${field}:\\s+(.*)$`, 'm').exec(status)?.[1]?.trim().split(/\s+/) ?? [];
                expect(ids, `${field} of sandbox process ${pid} on the host`).toHaveLength(4);
                expect(ids, `${field} of sandbox process ${pid} on the host`).not.toContain('0');
              }
            }
          } finally {
            await running;
          }
          expect((await sandbox.exec('id -u')).output).toBe('0\n');
        },
      );
  });
}

/** Adds a `user` key to the host's session and user keyrings; returns their serials. */
function hostKeys(description: string, payload: string): number[] {
  const script = [
    'import ctypes, os, sys',
    'libc = ctypes.CDLL(None, use_errno=True); libc.syscall.restype = ctypes.c_long',
    "nr = {'x86_64': 248, 'aarch64': 217}[os.uname().machine]",
    'for ring in (-3, -4):',
    '    k = libc.syscall(nr, b"user", sys.argv[1].encode(), sys.argv[2].encode(), len(sys.argv[2]), ring)',
    '    print(k)',
  ].join('\n');
  const out = execFileSync(hostPython(), [...HOST_PYTHON_FLAGS, '-c', script, description, payload], {
    encoding: 'utf8',
  });
  return out
    .split('\n')
    .map(Number)
    .filter((serial) => serial > 0);
}

function dropHostKeys(keys: readonly number[]): void {
  if (keys.length === 0) return;
  const script = [
    'import ctypes, os, sys',
    'libc = ctypes.CDLL(None, use_errno=True); libc.syscall.restype = ctypes.c_long',
    "nr = {'x86_64': 250, 'aarch64': 219}[os.uname().machine]",
    'for key in sys.argv[1:]: libc.syscall(nr, 21, int(key))',
  ].join('\n');
  execFileSync(hostPython(), [...HOST_PYTHON_FLAGS, '-c', script, ...keys.map(String)]);
}
