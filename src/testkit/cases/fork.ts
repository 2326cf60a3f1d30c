import { describe, expect } from 'vitest';
import type { Sandbox } from '../../sandbox/sandbox.js';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';

/**
 * `fork(count)`: copies that start from the sandbox's file changes and main-shell state, are
 * independent of it and of each other, diff against the same pristine image, reset to it, outlive
 * the original, and do not get its processes. A backend that declares no fork has no `fork`.
 */
export function forkCases(it: ConformanceTest, context: ConformanceContext): void {
  const { fork, processesVisible, cwd } = context.options;

  describe('fork', () => {
    if (!fork) {
      it('has no fork() where the backend declares it cannot copy a sandbox', ({ sandbox }) => {
        expect(sandbox.fork).toBeUndefined();
      });
      return;
    }

    it('copies the file changes and the shell state; the copies are independent and reset to pristine', async ({
      sandbox,
    }) => {
      const shell = sandbox.session();
      await shell.run(
        [
          'mkdir -p /tmp/forked && cd /tmp/forked',
          'echo kept > kept.txt',
          'rm /etc/shells',
          'FORK_VAR="a b"; export FORK_EXPORTED=1',
          'forked_fn() { echo "fn $1"; }',
          'umask 077',
          '(sleep 60 &)',
        ].join('\n'),
      );
      const before = await sandbox.diff();
      const copies: Sandbox[] = await sandbox.fork!(2);
      try {
        expect(copies).toHaveLength(2);
        const [a, b] = copies as [Sandbox, Sandbox];
        expect(a.id).not.toBe(sandbox.id);
        for (const copy of copies) {
          expect(await copy.diff()).toEqual(before);
          const state = await copy.session().run('pwd; echo "$FORK_VAR/$FORK_EXPORTED"; forked_fn x; umask');
          expect(state).toMatchObject({ output: '/tmp/forked\na b/1\nfn x\n0077\n', exitCode: 0 });
          expect(copy.session().cwd).toBe('/tmp/forked');
          if (processesVisible) {
            const sleeping = await copy.exec('pgrep -x sleep || echo none');
            expect(sleeping.output, 'processes are not copied').toBe('none\n');
          }
        }
        await a.session().run('echo only-a > only-a.txt; rm kept.txt');
        expect((await b.exec('cat /tmp/forked/kept.txt')).output).toBe('kept\n');
        await expect(b.readFile('/tmp/forked/only-a.txt')).rejects.toMatchObject({ code: 'SANDBOX_IO' });
        await expect(sandbox.readFile('/tmp/forked/only-a.txt')).rejects.toMatchObject({
          code: 'SANDBOX_IO',
        });
        expect(await sandbox.diff()).toEqual(before);
        await sandbox.close();
        expect((await b.session().run('cat kept.txt')).output).toBe('kept\n');
        await b.reset();
        expect(await b.diff()).toEqual([]);
        expect(await b.session().run(`pwd; echo "\${FORK_VAR-unset}"`)).toMatchObject({
          output: `${cwd}\nunset\n`,
        });
        expect((await a.exec('cat /tmp/forked/only-a.txt')).output).toBe('only-a\n');
      } finally {
        await Promise.all(copies.map((copy) => copy.close()));
      }
    });

    it('branch() keeps the state of its instant: copies opened later have it, whatever changed since', async ({
      sandbox,
    }) => {
      expect(sandbox.branch, 'a backend that forks can branch').toBeDefined();
      const shell = sandbox.session();
      await shell.run('mkdir -p /tmp/branched && cd /tmp/branched && echo kept > kept.txt; BRANCH_VAR=then');
      const before = await sandbox.diff();
      const branch = await sandbox.branch!();
      expect(branch.cwd).toBe('/tmp/branched');
      // The original moves on before any copy opens: the copies must not see it.
      await shell.run('echo later > kept.txt; echo new > new.txt; cd /; BRANCH_VAR=now');
      const copies: Sandbox[] = [];
      try {
        copies.push(await branch.open(), await branch.open());
        for (const copy of copies) {
          expect(await copy.diff()).toEqual(before);
          expect(await copy.session().run('pwd; cat kept.txt; echo "$BRANCH_VAR"; ls')).toMatchObject({
            output: '/tmp/branched\nkept\nthen\nkept.txt\n',
            exitCode: 0,
          });
        }
        await (copies[0] as Sandbox).session().run('echo only-first > kept.txt');
        expect((await (copies[1] as Sandbox).exec('cat /tmp/branched/kept.txt')).output).toBe('kept\n');
        expect((await sandbox.exec('cat /tmp/branched/kept.txt')).output).toBe('later\n');
        // Released, the branch opens no more copies; the ones it opened stay whole, and so they do
        // when the original closes.
        await branch.release();
        await branch.release();
        await expect(branch.open()).rejects.toMatchObject({ code: 'SANDBOX_CLOSED' });
        await sandbox.close();
        expect((await (copies[1] as Sandbox).session().run('cat kept.txt')).output).toBe('kept\n');
      } finally {
        await branch.release();
        await Promise.all(copies.map((copy) => copy.close()));
      }
    });

    it('refuses a count that is not a whole number from 1', async ({ sandbox }) => {
      for (const count of [0, 1.5, -2]) {
        await expect(sandbox.fork!(count)).rejects.toMatchObject({ code: 'SANDBOX_INVALID_SPEC' });
      }
    });
  });
}
