import { describe, expect } from 'vitest';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';
import { detached, marked, markedProcesses, newMarker } from '../host-processes.js';
import { waitUntil } from '../wait-until.js';

/** Time limits: the whole process tree goes, the partial output stays, the sandbox keeps working. */
export function timeoutCases(it: ConformanceTest, context: ConformanceContext): void {
  const { processesVisible } = context.options;

  /** Runs `start` (a command that leaves two marked background processes) and checks the tree dies. */
  async function expectTreeKilled(
    start: (marker: string) => Promise<{ output: string; exitCode: number | null; timedOut: boolean }>,
    partial: string,
  ): Promise<void> {
    const marker = newMarker();
    const running = start(marker);
    if (processesVisible) {
      const seen = await waitUntil(
        () => markedProcesses(marker),
        (pids) => pids.length >= 2,
        { timeoutMs: 5000, intervalMs: 20 },
      );
      expect(seen.length, 'background processes visible from the host while they run').toBeGreaterThanOrEqual(
        2,
      );
    }
    const result = await running;
    expect(result).toMatchObject({ timedOut: true, exitCode: null });
    expect(result.output).toContain(partial);
    if (processesVisible) {
      const left = await waitUntil(
        () => markedProcesses(marker),
        (pids) => pids.length === 0,
        { timeoutMs: 3000 },
      );
      expect(left, 'processes of the timed-out command still running on the host').toEqual([]);
    }
  }

  describe('time limits', () => {
    it('kills a timed-out session command with its whole process tree; the session goes on in the same cwd', async ({
      sandbox,
    }) => {
      const shell = sandbox.session();
      await shell.run('cd /tmp');
      await expectTreeKilled(
        (marker) =>
          shell.run(`echo before-the-sleep; ${marked(marker)} & ${detached(marker)} & sleep 100`, {
            timeoutMs: 1500,
          }),
        'before-the-sleep',
      );
      const after = await shell.run('pwd; echo alive');
      expect(after).toMatchObject({ output: '/tmp\nalive\n', exitCode: 0, timedOut: false });
      expect(shell.cwd).toBe('/tmp');
    });

    it('kills a timed-out exec with its whole process tree', async ({ sandbox }) => {
      await expectTreeKilled(
        (marker) =>
          sandbox.exec(`echo partial-output; ${marked(marker)} & ${detached(marker)} & sleep 100`, {
            timeoutMs: 1500,
          }),
        'partial-output',
      );
      expect((await sandbox.exec('echo alive')).output).toBe('alive\n');
    });

    it('stops an infinite loop at the time limit', async ({ sandbox }) => {
      const shell = sandbox.session();
      for (const run of [
        () => shell.run('echo looping; while true; do :; done', { timeoutMs: 1000 }),
        () => sandbox.exec('echo looping; while true; do :; done', { timeoutMs: 1000 }),
      ]) {
        const result = await run();
        expect(result).toMatchObject({ timedOut: true, exitCode: null });
        expect(result.output).toContain('looping');
        expect(result.durationMs).toBeGreaterThanOrEqual(900);
        expect(result.durationMs).toBeLessThan(8000);
      }
      expect((await shell.run('echo alive')).output).toBe('alive\n');
    });
  });
}
