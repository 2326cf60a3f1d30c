import { describe, expect } from 'vitest';
import type { FileChange } from '../../sandbox/sandbox.js';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';
import { detached, marked, markedProcesses, newMarker } from '../host-processes.js';
import { waitUntil } from '../wait-until.js';

/** reset() returns to the pristine image; diff() says exactly what changed against it. */
export function resetDiffCases(it: ConformanceTest, context: ConformanceContext): void {
  const { processesVisible, cwd } = context.options;

  describe('reset and diff', () => {
    it('reset() drops added, modified and deleted files and kills every process; the session keeps working', async ({
      sandbox,
    }) => {
      const shell = sandbox.session();
      const passwd = Buffer.from(await sandbox.readFile('/etc/passwd'));
      const marker = newMarker();
      await shell.run(
        [
          'cd /tmp',
          'RESET_VAR=1',
          'echo added > /tmp/added.txt',
          'echo changed >> /etc/passwd',
          'rm /etc/shells',
          `${marked(marker)} &`,
          `${detached(marker)} &`,
        ].join('\n'),
      );
      const running = sandbox.exec(marked(marker), { timeoutMs: 60_000 });
      if (processesVisible) {
        const seen = await waitUntil(
          () => markedProcesses(marker),
          (pids) => pids.length >= 3,
        );
        expect(seen.length).toBeGreaterThanOrEqual(3);
      }
      expect((await sandbox.diff()).length).toBeGreaterThanOrEqual(3);

      await sandbox.reset();

      expect(await sandbox.diff()).toEqual([]);
      await expect(sandbox.readFile('/tmp/added.txt')).rejects.toMatchObject({ code: 'SANDBOX_IO' });
      expect(Buffer.from(await sandbox.readFile('/etc/passwd')).equals(passwd)).toBe(true);
      expect((await sandbox.exec('test -f /etc/shells && echo present')).output).toBe('present\n');
      const ended = await Promise.race([
        running,
        new Promise<'hung'>((resolve) => setTimeout(resolve, 5000, 'hung')),
      ]);
      expect(ended, 'an exec running during reset() ends').not.toBe('hung');
      if (ended !== 'hung') expect(ended.exitCode).not.toBe(0);
      if (processesVisible) {
        const left = await waitUntil(
          () => markedProcesses(marker),
          (pids) => pids.length === 0,
        );
        expect(left, 'processes that survived reset()').toEqual([]);
      }
      const after = await shell.run('pwd; declare -p RESET_VAR 2>/dev/null || echo unset');
      expect(after).toMatchObject({ output: `${cwd}\nunset\n`, exitCode: 0 });
      expect(shell.cwd).toBe(cwd);
    });

    it('diff() lists exactly the added, modified and deleted paths, sorted by path', async ({ sandbox }) => {
      expect(await sandbox.diff()).toEqual([]);
      const result = await sandbox.session().run(
        [
          'mkdir -p /tmp/dir/sub && echo f > /tmp/dir/sub/file',
          'echo a > /tmp/dir-file',
          'ln -s /etc/passwd /tmp/link',
          'echo extra >> /etc/passwd',
          'rm /etc/shells',
          'rm -rf /srv',
          // Modified, then restored to identical content: not a change.
          'cp /etc/group /tmp/group.orig && echo temporary >> /etc/group && cp /tmp/group.orig /etc/group',
          'rm /tmp/group.orig',
          // Added, then removed again: not a change either.
          'touch /tmp/fleeting && rm /tmp/fleeting',
        ].join(' && '),
      );
      expect(result).toMatchObject({ exitCode: 0 });
      const expected: FileChange[] = [
        { path: '/etc/passwd', kind: 'modified', type: 'file' },
        { path: '/etc/shells', kind: 'deleted', type: 'file' },
        { path: '/srv', kind: 'deleted', type: 'dir' },
        { path: '/tmp/dir', kind: 'added', type: 'dir' },
        { path: '/tmp/dir-file', kind: 'added', type: 'file' },
        { path: '/tmp/dir/sub', kind: 'added', type: 'dir' },
        { path: '/tmp/dir/sub/file', kind: 'added', type: 'file' },
        { path: '/tmp/link', kind: 'added', type: 'symlink' },
      ];
      const diff = await sandbox.diff();
      expect(diff).toEqual(expected);
      const paths = diff.map((change) => change.path);
      expect(paths).toEqual([...paths].sort());
    });
  });
}
