import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect } from 'vitest';
import { FULL_LIMIT_GUARANTEES, type LimitGuarantees } from '../../sandbox/limit-guarantees.js';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';

const MiB = 1024 * 1024;

/**
 * Forks up to ARGV[0] children that sleep, stopping at the first refusal (no retry, unlike a shell's
 * `&`), prints how many it got and why it stopped, then kills them all.
 */
const FORKS = `
my ($want, @kids, $refused) = (shift @ARGV);
for (1 .. $want) {
  my $pid = fork();
  if (!defined $pid) { $refused = "$!"; last }
  if ($pid == 0) { sleep 60; POSIX::_exit(0) }
  push @kids, $pid;
}
print "forked ", scalar(@kids), "\n";
print "refused ", ($refused // 'never'), "\n";
kill 'KILL', @kids;
waitpid($_, 0) for @kids;
use POSIX ();
`;

/** What the provider says it enforces here (every limit, unless it says otherwise). */
function guaranteesOf(context: ConformanceContext): LimitGuarantees {
  return context.provider().limitGuarantees?.() ?? FULL_LIMIT_GUARANTEES;
}

function hostCanFork(): boolean {
  return spawnSync('/bin/sh', ['-c', 'exit 0']).status === 0;
}

function freeBytes(path: string): number {
  const stats = statfsSync(path);
  return stats.bavail * stats.bsize;
}

/** Memory, process and disk limits hold against hostile commands, and the host stays usable. */
export function resourceCases(it: ConformanceTest, context: ConformanceContext): void {
  const { limits, diskQuota } = context.options;

  describe('resource limits', () => {
    it('contains a fork bomb within the process limit; the host can still fork', async ({ sandbox }) => {
      const shell = sandbox.session();
      let most = 0;
      let hostForked = true;
      let bombing = true;
      const watch = (async () => {
        while (bombing) {
          most = Math.max(most, (await sandbox.stats()).processes);
          hostForked &&= hostCanFork();
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      const result = await shell.run(':(){ :|:& };:; sleep 30', { timeoutMs: 2500 });
      bombing = false;
      await watch;
      expect(result).toMatchObject({ timedOut: true, exitCode: null });
      expect(most, 'the bomb ran').toBeGreaterThan(10);
      expect(most, 'processes at once').toBeLessThanOrEqual(limits.pids);
      expect(hostForked).toBe(true);
      expect(hostCanFork()).toBe(true);
      await sandbox.reset();
      expect(await shell.run('echo alive')).toMatchObject({ output: 'alive\n', exitCode: 0 });
      expect((await sandbox.stats()).processes).toBeLessThan(10);
    });

    it('kills a process allocating several GiB under the memory limit; the host is fine', async ({
      sandbox,
    }) => {
      const hog = [
        "/usr/bin/python3 -c '",
        'chunks = []',
        'for _ in range(64):',
        '    chunks.append(b"\\x01" * (64 << 20))',
        'print("allocated", len(chunks) * 64, "MiB")',
        "'",
        'echo "status=$?"',
      ].join('\n');
      const result = await sandbox.session().run(hog, { timeoutMs: 30_000 });
      expect(result.timedOut).toBe(false);
      expect(result.output).not.toContain('allocated 4096 MiB');
      if (guaranteesOf(context).totalMemory) {
        // A memory cgroup: the process is OOM-killed.
        expect(result.output).toContain(`status=${128 + 9}`);
      } else {
        // A per-process address-space limit (the provider says so): the allocation is refused.
        expect(result.output).toContain('MemoryError');
        expect(result.output).toMatch(/status=[1-9]\d*\n/);
      }
      expect(hostCanFork()).toBe(true);
      expect(await sandbox.session().run('echo alive')).toMatchObject({ output: 'alive\n', exitCode: 0 });
    });

    it('caps memory in total across processes exactly where the provider declares it', async ({
      sandbox,
    }) => {
      // Two processes of 60 % each: together over the limit, each under it.
      const mib = Math.floor((limits.memoryBytes * 0.6) / MiB);
      const one = `/usr/bin/python3 -c 'import time; held = b"\\x01" * (${mib} << 20); time.sleep(3)'`;
      const result = await sandbox
        .session()
        .run(`${one} & a=$!; ${one} & b=$!; wait $a; echo "a=$?"; wait $b; echo "b=$?"`, {
          timeoutMs: 30_000,
        });
      const statuses = [...result.output.matchAll(/^[ab]=(\d+)$/gm)].map((match) => Number(match[1]));
      expect(statuses, result.output).toHaveLength(2);
      if (guaranteesOf(context).totalMemory) expect(statuses, result.output).toContain(128 + 9);
      else expect(statuses, 'both fit under a per-process limit').toEqual([0, 0]);
      expect(await sandbox.session().run('echo alive')).toMatchObject({ output: 'alive\n', exitCode: 0 });
    });

    it('refuses the forks of one command past the process limit, in a session and in exec', async ({
      sandbox,
    }) => {
      await sandbox.writeFile('/tmp/forks.pl', FORKS);
      const want = limits.pids + 50;
      for (const result of [
        await sandbox.session().run(`perl /tmp/forks.pl ${want}`, { timeoutMs: 30_000 }),
        await sandbox.exec(`perl /tmp/forks.pl ${want}`, { timeoutMs: 30_000 }),
      ]) {
        expect(result, result.output).toMatchObject({ timedOut: false, exitCode: 0 });
        const forked = Number(/^forked (\d+)$/m.exec(result.output)?.[1]);
        expect(forked, 'children forked').toBeLessThan(limits.pids);
        // Not a limit so low that ordinary work fails: most of it is the command's.
        expect(forked, 'children forked').toBeGreaterThan(limits.pids / 2);
        expect(result.output).toContain('refused Resource temporarily unavailable');
      }
      expect(hostCanFork()).toBe(true);
      expect(await sandbox.session().run('echo alive')).toMatchObject({ output: 'alive\n', exitCode: 0 });
    });

    it('leaves another sandbox of the same provider free to fork while one runs a fork bomb', async ({
      open,
    }) => {
      const [bombed, other] = await Promise.all([open(), open()]);
      await other.writeFile('/tmp/forks.pl', FORKS);
      const bomb = bombed.session().run(':(){ :|:& };:; sleep 30', { timeoutMs: 3000 });
      // Once the bomb has reached the limit (it keeps retrying its forks while the other runs).
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const forks = await other.exec('perl /tmp/forks.pl 50', { timeoutMs: 20_000 });
      expect(await bomb).toMatchObject({ timedOut: true });
      expect(forks.output).toContain('forked 50\n');
      expect(forks.output).toContain('refused never');
      expect(hostCanFork()).toBe(true);
    });

    // Where the backend cannot limit the disk at all (docker on overlay2 over ext4), the case is
    // skipped under a name that says so: a platform limit, not a component an installer could add.
    (diskQuota ? it : it.skip)(
      `${diskQuota ? '' : 'platform limit: '}stops writes at the disk quota with "No space left"; the host disk is untouched`,
      async ({ open }) => {
        const diskBytes = 20 * MiB;
        const sandbox = await open({ limits: { diskBytes } });
        const shell = sandbox.session();
        const paths = [...new Set(['/', tmpdir()])];
        const before = paths.map(freeBytes);
        const result = await shell.run(
          'head -c 50M /dev/zero > /tmp/big; echo "status=$?"; stat -c "size=%s" /tmp/big',
          {
            timeoutMs: 20_000,
          },
        );
        const after = paths.map(freeBytes);
        expect(result.output).toContain('No space left on device');
        expect(result.output).toMatch(/status=[1-9]/);
        const size = Number(/size=(\d+)/.exec(result.output)?.[1]);
        expect(size).toBeGreaterThan(0);
        expect(size).toBeLessThanOrEqual(diskBytes);
        paths.forEach((path, index) => {
          expect(before[index]! - after[index]!, `free space lost on ${path}`).toBeLessThan(10 * MiB);
        });
        await expect(sandbox.writeFile('/tmp/more.bin', randomBytes(25 * MiB))).rejects.toMatchObject({
          name: 'SandboxError',
          code: 'SANDBOX_IO',
        });
        const freed = await shell.run(
          'rm -f /tmp/big /tmp/more.bin && head -c 5M /dev/zero > /tmp/small && echo written',
        );
        expect(freed).toMatchObject({ output: 'written\n', exitCode: 0 });
      },
    );
  });
}
