import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import type { ConformanceTest } from '../conformance-fixtures.js';

const SANDBOX_IO = { name: 'SandboxError', code: 'SANDBOX_IO' };

/** readFile and writeFile: exact bytes, clear errors, and no way out through symlinks. */
export function fileCases(it: ConformanceTest): void {
  describe('readFile and writeFile', () => {
    it('round-trips bytes, binary included, and the shell sees the same bytes', async ({ sandbox }) => {
      const bytes = Buffer.concat([
        Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
        randomBytes(1 << 20),
      ]);
      await sandbox.writeFile('/tmp/deep/er/blob.bin', new Uint8Array(bytes));
      expect(Buffer.from(await sandbox.readFile('/tmp/deep/er/blob.bin')).equals(bytes)).toBe(true);
      const digest = createHash('sha256').update(bytes).digest('hex');
      expect((await sandbox.session().run('sha256sum /tmp/deep/er/blob.bin')).output).toBe(
        `${digest}  /tmp/deep/er/blob.bin\n`,
      );
      // The scorer's digest reads a file a mebibyte at a time: this one takes two reads and an end.
      expect(await sandbox.digest(['/tmp/deep/er/blob.bin'])).toEqual({
        '/tmp/deep/er/blob.bin': `file:${createHash('md5').update(bytes).digest('hex')}`,
      });

      await sandbox.writeFile('/tmp/text.txt', 'héllo\nwörld – ✓');
      expect(Buffer.from(await sandbox.readFile('/tmp/text.txt')).toString('utf8')).toBe('héllo\nwörld – ✓');
      await sandbox.writeFile('/tmp/text.txt', 'short');
      expect(Buffer.from(await sandbox.readFile('/tmp/text.txt')).toString('utf8')).toBe('short');
      await sandbox.writeFile('/tmp/empty', '');
      expect((await sandbox.readFile('/tmp/empty')).length).toBe(0);

      await sandbox.session().run("printf 'from\\0shell' > /tmp/made-by-shell");
      expect(Buffer.from(await sandbox.readFile('/tmp/made-by-shell')).toString('latin1')).toBe(
        'from\0shell',
      );
    });

    it('throws SANDBOX_IO for a missing file or a directory', async ({ sandbox }) => {
      await expect(sandbox.readFile('/no/such/file')).rejects.toMatchObject(SANDBOX_IO);
      await expect(sandbox.readFile('/tmp')).rejects.toMatchObject(SANDBOX_IO);
      await expect(sandbox.writeFile('/proc/intercode-cannot-exist', 'x')).rejects.toMatchObject(SANDBOX_IO);
    });

    it('cannot read or write host files through symlinks made inside the sandbox', async ({
      sandbox,
      secrets,
    }) => {
      const targets = ['/etc/shadow', ...secrets.map((secret) => secret.path)];
      const links: string[] = [];
      for (const [index, target] of targets.entries()) {
        links.push(`/tmp/link-${index}`, `/tmp/rel-${index}`);
        await sandbox
          .session()
          .run(`ln -s '${target}' /tmp/link-${index}; ln -s '../../../../..${target}' /tmp/rel-${index}`);
      }
      for (const link of links) {
        await expect(sandbox.readFile(link), link).rejects.toMatchObject(SANDBOX_IO);
      }
      for (const [index, secret] of secrets.entries()) {
        await sandbox.writeFile(`/tmp/link-${index + 1}`, 'overwritten from the sandbox').catch(() => {});
        expect(readFileSync(secret.path, 'utf8')).toBe(secret.content);
      }
    });
  });
}
