import { createHash, randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';

/** `exec`: one command in a fresh process tree, with its own stdin, cwd and environment. */
export function execCases(it: ConformanceTest, context: ConformanceContext): void {
  describe('stateless exec', () => {
    it('returns the exit code and stdout+stderr interleaved', async ({ sandbox }) => {
      const result = await sandbox.exec('echo out; echo err >&2; echo out2; exit 3');
      expect(result).toMatchObject({ output: 'out\nerr\nout2\n', exitCode: 3, timedOut: false });
      expect((await sandbox.exec('true')).exitCode).toBe(0);
      expect((await sandbox.exec('kill -KILL $$')).exitCode).toBe(128 + 9);
    });

    it('feeds stdin as text and as bytes', async ({ sandbox }) => {
      const text = await sandbox.exec('cat', { stdin: 'line one\nline two\n' });
      expect(text).toMatchObject({ output: 'line one\nline two\n', exitCode: 0 });
      const bytes = Buffer.concat([
        Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
        randomBytes(200_000),
      ]);
      const digest = createHash('sha256').update(bytes).digest('hex');
      const hashed = await sandbox.exec('sha256sum', { stdin: new Uint8Array(bytes) });
      expect(hashed.output).toBe(`${digest}  -\n`);
      const none = await sandbox.exec('cat; echo "cat=$?"', { timeoutMs: 5000 });
      expect(none).toMatchObject({ output: 'cat=0\n', timedOut: false });
    });

    it('applies the cwd and env options and never sees the host environment', async ({ sandbox }) => {
      const hostOnly = `host-only-${randomBytes(8).toString('hex')}`;
      process.env.INTERCODE_TEST_HOST_ONLY = hostOnly;
      try {
        const result = await sandbox.exec('pwd; echo "$GREETING"; env', {
          cwd: '/tmp',
          env: { GREETING: 'hello sandbox' },
        });
        const [cwd, greeting] = result.output.split('\n');
        expect(cwd).toBe('/tmp');
        expect(greeting).toBe('hello sandbox');
        expect(result.output).not.toContain(hostOnly);
        expect(result.output).not.toContain('INTERCODE_TEST_HOST_ONLY');
        const defaults = await sandbox.exec('pwd; declare -p GREETING 2>/dev/null || echo unset');
        expect(defaults.output).toBe(`${context.options.cwd}\nunset\n`);
      } finally {
        delete process.env.INTERCODE_TEST_HOST_ONLY;
      }
    });

    it('shares the file system with the session but none of its shell state', async ({ sandbox }) => {
      const shell = sandbox.session();
      await shell.run('cd /tmp; SHELL_ONLY=1; shell_fn() { :; }; echo shared > /tmp/shared.txt');
      const result = await sandbox.exec(
        'pwd; declare -p SHELL_ONLY 2>/dev/null || echo unset; type shell_fn >/dev/null 2>&1 || echo no-fn; cat /tmp/shared.txt',
      );
      expect(result).toMatchObject({ output: `${context.options.cwd}\nunset\nno-fn\nshared\n`, exitCode: 0 });
    });
  });
}
