import { describe, expect } from 'vitest';
import { attempt } from '../attempt.js';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';
import { heapUsedAfterGc } from '../heap.js';
import { openFileDescriptors } from '../host-processes.js';
import { waitUntil } from '../wait-until.js';

const MiB = 1024 * 1024;

/** Many sandboxes at once, many commands in one: no failure, no leak, no cross-talk. */
export function scaleCases(it: ConformanceTest, context: ConformanceContext): void {
  const { concurrentSandboxes, sessionCommands, host } = context.options;

  describe('scale', () => {
    it(`creates ${concurrentSandboxes} sandboxes at once, each isolated from the others`, async ({
      open,
    }) => {
      const sandboxes = await Promise.all(Array.from({ length: concurrentSandboxes }, () => open()));
      const ids = sandboxes.map((sandbox) => sandbox.id);
      expect(new Set(ids).size).toBe(concurrentSandboxes);
      const runs = await Promise.all(
        sandboxes.map((sandbox, index) =>
          sandbox.session().run(`test -e /tmp/who || echo ${index} > /tmp/who; cat /tmp/who`),
        ),
      );
      expect(runs.map((run) => run.output)).toEqual(sandboxes.map((_, index) => `${index}\n`));
      expect(runs.every((run) => run.exitCode === 0)).toBe(true);
      const reads = await Promise.all(sandboxes.map((sandbox) => sandbox.readFile('/tmp/who')));
      expect(reads.map((bytes) => Buffer.from(bytes).toString())).toEqual(
        sandboxes.map((_, index) => `${index}\n`),
      );
      const execs = await Promise.all(sandboxes.map((sandbox) => sandbox.exec('echo ok')));
      expect(execs.every((run) => run.output === 'ok\n' && run.exitCode === 0)).toBe(true);

      await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
      await expect(attempt(() => sandboxes[0]!.session().run('echo closed'))).rejects.toMatchObject({
        code: 'SANDBOX_CLOSED',
      });
      if (host) expect(await host.residue(host.currentOwner(), ids)).toEqual([]);
    });

    it(`runs ${sessionCommands} commands in one session without leaking descriptors, processes or memory`, async ({
      sandbox,
    }) => {
      const shell = sandbox.session();
      for (let i = 0; i < 50; i += 1) await shell.run(`echo warm-up ${i}`);
      for (let i = 0; i < 5; i += 1) await sandbox.exec('echo warm-up');
      const fdsBefore = openFileDescriptors();
      const processesBefore = (await sandbox.stats()).processes;
      const heapBefore = heapUsedAfterGc();
      const rssBefore = process.memoryUsage().rss;

      const wrong: string[] = [];
      for (let i = 0; i < sessionCommands; i += 1) {
        const result = await shell.run(`echo line-${i}; echo err-${i} >&2; (exit ${i % 4})`);
        if (result.output !== `line-${i}\nerr-${i}\n` || result.exitCode !== i % 4) {
          wrong.push(`${i}: ${JSON.stringify(result)}`);
        }
      }
      for (let i = 0; i < 50; i += 1) {
        const result = await sandbox.exec(`echo exec-${i}`);
        if (result.output !== `exec-${i}\n`) wrong.push(`exec ${i}: ${JSON.stringify(result)}`);
      }
      expect(wrong.slice(0, 5)).toEqual([]);

      expect(openFileDescriptors(), 'open descriptors of the test process').toBeLessThanOrEqual(
        fdsBefore + 2,
      );
      // Trees of finished execs may take a moment to leave; a leak stays.
      const processesAfter = await waitUntil(
        async () => (await sandbox.stats()).processes,
        (count) => count <= processesBefore,
        { timeoutMs: 2000 },
      );
      expect(processesAfter, 'processes in the sandbox').toBeLessThanOrEqual(processesBefore);
      const heapAfter = heapUsedAfterGc();
      if (heapBefore !== null && heapAfter !== null) {
        expect(heapAfter - heapBefore, 'heap growth after GC').toBeLessThan(16 * MiB);
      } else {
        expect(process.memoryUsage().rss - rssBefore, 'RSS growth').toBeLessThan(128 * MiB);
      }
      // A guard against a hang, not a speed bar: on a loaded 2-core machine 1,050 commands can take a minute.
    }, 180_000);
  });
}
