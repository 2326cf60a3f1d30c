import { describe, expect } from 'vitest';
import type { SandboxProvider } from '../../sandbox/sandbox.js';
import { attempt } from '../attempt.js';
import type { ConformanceTest } from '../conformance-fixtures.js';
import { type ConformanceContext, type HostResidue, mergeSpec } from '../conformance-options.js';
import { startCrashOwner } from '../crash-owner.js';
import {
  children,
  descendants,
  detached,
  isRunning,
  marked,
  markedProcesses,
  newMarker,
  type ProcessRef,
  processRef,
} from '../host-processes.js';
import { waitUntil } from '../wait-until.js';

const key = (process: ProcessRef) => `${process.pid}/${process.startTime}`;
/** The owner process and everything it started, as they are now. */
const ownerTree = (pid: number) => [processRef(pid), ...descendants(pid)].filter((ref) => ref !== null);
const vanishing = (residue: readonly HostResidue[]) =>
  residue.filter((item) => item.kind === 'process' || item.kind === 'mount');

/** Closing a provider, or killing its owner outright, leaves nothing on the host. */
export function lifecycleCases(it: ConformanceTest, context: ConformanceContext): void {
  const { processesVisible, processesAreDescendants, host, spec } = context.options;

  describe('provider lifecycle', () => {
    it('provider.close() ends every sandbox, process, cgroup and runtime directory it made', async ({
      newProvider,
    }) => {
      const before = new Set(descendants(process.pid).map(key));
      const provider: SandboxProvider = await newProvider();
      const marker = newMarker();
      const first = await provider.create(mergeSpec(spec, { label: 'close-case' }));
      const second = await provider.create(mergeSpec(spec, { label: 'close-case' }));
      await first.session().run(`${marked(marker)} & ${detached(marker)} &`);
      const extra = await second.openSession();
      await extra.run(`${marked(marker)} &`);
      const running = first.exec(marked(marker), { timeoutMs: 60_000 });
      if (processesVisible) {
        const seen = await waitUntil(
          () => markedProcesses(marker),
          (pids) => pids.length >= 4,
        );
        expect(seen.length).toBeGreaterThanOrEqual(4);
      }
      const started = descendants(process.pid).filter((child) => !before.has(key(child)));
      if (processesAreDescendants)
        expect(started.length, 'processes the provider started').toBeGreaterThan(0);
      const ids = [first.id, second.id];
      if (host) expect((await host.residue(host.currentOwner(), ids)).length).toBeGreaterThan(0);

      await provider.close();

      const ended = await Promise.race([
        running.then(
          (result) => (result.exitCode === 0 ? 'completed' : 'ended'),
          () => 'rejected',
        ),
        new Promise((resolve) => setTimeout(resolve, 5000, 'hung')),
      ]);
      expect(['ended', 'rejected']).toContain(ended);
      const survivors = await waitUntil(
        () => started.filter(isRunning),
        (left) => left.length === 0,
        { timeoutMs: 2000 },
      );
      expect(survivors, 'processes the provider started that still run').toEqual([]);
      if (processesVisible) expect(markedProcesses(marker)).toEqual([]);
      if (host) expect(await host.residue(host.currentOwner())).toEqual([]);
      const closed = { name: 'SandboxError', code: 'SANDBOX_CLOSED' };
      await expect(attempt(() => first.session().run('echo hi'))).rejects.toMatchObject(closed);
      await expect(attempt(() => extra.run('echo hi'))).rejects.toMatchObject(closed);
      await expect(attempt(() => second.exec('echo hi'))).rejects.toMatchObject(closed);
      await expect(attempt(() => second.readFile('/etc/passwd'))).rejects.toMatchObject(closed);
    });

    it.runIf(host?.crashOwnerCommand)(
      'leaves nothing behind when its owner is killed with SIGKILL; the next provider reaps the rest',
      async ({ newProvider }) => {
        const probe = host!;
        const marker = newMarker();
        const { child, report } = await startCrashOwner(probe.crashOwnerCommand!, marker);
        try {
          expect(report.sandboxIds.length).toBeGreaterThan(0);
          if (processesVisible) {
            const seen = await waitUntil(
              () => markedProcesses(marker),
              (pids) => pids.length >= 4 * report.sandboxIds.length,
            );
            expect(seen.length).toBeGreaterThanOrEqual(4 * report.sandboxIds.length);
          }
          const tree = ownerTree(child.pid!);
          if (processesAreDescendants) expect(tree.length, 'the owner and its processes').toBeGreaterThan(1);
          expect(
            (await probe.residue(report.owner)).length,
            'what the probe sees while the owner runs',
          ).toBeGreaterThan(0);

          child.kill('SIGKILL');

          const survivors = await waitUntil(
            () => tree.filter(isRunning),
            (left) => left.length === 0,
          );
          expect(survivors, 'processes of the killed owner still running').toEqual([]);
          if (processesVisible) {
            // A daemon-run sandbox (docker) learns of its owner's death when the connection drops:
            // within moments, not at the same instant.
            const left = await waitUntil(
              () => markedProcesses(marker),
              (pids) => pids.length === 0,
              { timeoutMs: 3000 },
            );
            expect(left, 'marked processes of the killed owner').toEqual([]);
          }
          const live = await waitUntil(
            async () => vanishing(await probe.residue(report.owner)),
            (left) => left.length === 0,
          );
          expect(live, 'processes and mounts of the killed owner').toEqual([]);

          await expectReapedByNextProvider(newProvider, report.owner);
        } finally {
          child.kill('SIGKILL');
        }
      },
      60_000,
    );

    it.runIf(host?.crashOwnerCommand)(
      'runs no command of sandboxes still starting when their owner was killed, and reaps the rest',
      async ({ newProvider }) => {
        const probe = host!;
        const marker = newMarker();
        const { child, report, startLate } = await startCrashOwner(probe.crashOwnerCommand!, marker);
        try {
          // Killed while more commands are starting: the moment a half-made sandbox can slip away.
          await startLate();
          // The owner and what it started itself (helpers, launchers) end at once; a half-made
          // sandbox below them may not, and must be found by the next provider.
          const top = [processRef(child.pid!), ...children(child.pid!)].filter((ref) => ref !== null);
          child.kill('SIGKILL');
          const owner = await waitUntil(
            () => top.filter(isRunning),
            (left) => left.length === 0,
          );
          expect(owner, 'the killed owner and its direct children').toEqual([]);

          // No command of the killed owner may run on, not even until the next provider starts:
          // a command waits for its go signal, which a dead owner never sends.
          if (processesVisible) {
            const left = await waitUntil(
              () => markedProcesses(marker),
              (pids) => pids.length === 0,
              { timeoutMs: 3000 },
            );
            expect(left, 'commands of the killed owner still running').toEqual([]);
          }
          await expectReapedByNextProvider(newProvider, report.owner);
        } finally {
          child.kill('SIGKILL');
        }
      },
      60_000,
    );

    /** A new provider's first sandbox clears what a dead owner left: nothing of it remains. */
    async function expectReapedByNextProvider(
      newProvider: () => Promise<SandboxProvider>,
      owner: string,
    ): Promise<void> {
      const probe = host!;
      const next = await newProvider();
      const sandbox = await next.create(mergeSpec(spec, { label: 'after-crash' }));
      expect((await sandbox.exec('echo fresh')).output).toBe('fresh\n');
      const left = await waitUntil(
        () => probe.residue(owner),
        (residue) => residue.length === 0,
        { timeoutMs: 2000 },
      );
      expect(left, 'what the killed owner left after the next provider started').toEqual([]);
    }
  });
}
