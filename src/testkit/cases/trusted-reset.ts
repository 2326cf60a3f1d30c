import { describe, expect } from 'vitest';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';
import { detached, marked, markedProcesses, newMarker } from '../host-processes.js';
import { waitUntil } from '../wait-until.js';

/** The System V shared memory segments `ipcs` lists (rows with a key), as a shell command's output. */
const SHM_SEGMENTS = "ipcs -m | grep -c '^0x' || true";

/**
 * `reset({ trusted: true })`: a backend may keep its instance when nothing changed (docker keeps the
 * container), but what the sandbox then holds must be what `reset()` gives: no file, process, shell
 * state, /dev/shm entry or System V object of before.
 */
export function trustedResetCases(it: ConformanceTest, context: ConformanceContext): void {
  const { processesVisible, cwd } = context.options;

  describe('trusted reset', () => {
    it('leaves nothing of a read-only episode: processes, jobs and shell state end', async ({ sandbox }) => {
      const shell = sandbox.session();
      const marker = newMarker();
      await shell.run(
        ['cd /tmp', 'TRUSTED_VAR=1', 'ls -R /etc > /dev/null', `${marked(marker)} &`].join('\n'),
      );
      await shell.run(`${detached(marker)} &`);
      await sandbox.reset({ trusted: true });
      const after = await shell.run('pwd; declare -p TRUSTED_VAR 2>/dev/null || echo unset; jobs -p | wc -l');
      expect(after).toMatchObject({ output: `${cwd}\nunset\n0\n`, exitCode: 0 });
      if (processesVisible) {
        const left = await waitUntil(
          () => markedProcesses(marker),
          (pids) => pids.length === 0,
        );
        expect(left, 'processes that survived the trusted reset').toEqual([]);
      }
      expect(await sandbox.diff()).toEqual([]);
    });

    it('leaves no file, /dev/shm entry or System V object of before', async ({ sandbox }) => {
      const shell = sandbox.session();
      const look = `ls -A /dev/shm | grep -c trusted || true; ${SHM_SEGMENTS}; ls -A /tmp | wc -l`;
      const pristine = (await shell.run(look)).output;
      const made = await shell.run(
        'echo kept > /tmp/trusted.txt && echo kept > /dev/shm/trusted && ipcmk -M 4096 > /dev/null && ' +
          SHM_SEGMENTS,
      );
      expect(made).toMatchObject({ output: '1\n', exitCode: 0 });
      await sandbox.reset({ trusted: true });
      expect(await sandbox.diff()).toEqual([]);
      expect((await shell.run(look)).output).toBe(pristine);
      // Each kind alone too: one change is enough to leave nothing of it.
      for (const change of [
        'echo kept > /dev/shm/trusted',
        'ipcmk -M 4096 > /dev/null',
        'mkdir /tmp/d && rmdir /tmp/d',
      ]) {
        expect((await shell.run(change)).exitCode).toBe(0);
        await sandbox.reset({ trusted: true });
        expect({ change, output: (await shell.run(look)).output }).toEqual({ change, output: pristine });
      }
    });
  });
}
