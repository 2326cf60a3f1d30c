import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { runtimeDir } from '../../core/host/runtime-dir.js';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';
import { LoopbackServer } from '../loopback-server.js';
import { kernelIsolationCases } from './kernel-isolation.js';

/** Nothing of the host is reachable: network, secrets, system files, kernel keyrings and namespaces. */
export function isolationCases(it: ConformanceTest, context: ConformanceContext): void {
  kernelIsolationCases(it, context);
  describe('isolation from the host', () => {
    it("cannot reach a TCP server on the host's 127.0.0.1 (the host itself can)", async ({ sandbox }) => {
      const server = await LoopbackServer.start();
      try {
        expect(await server.connectFromHost()).toContain('hello from the host');
        expect(server.connections).toBe(1);
        const { port } = server;
        const attempts = [
          `( exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED && cat <&3 )`,
          `( exec 3<>/dev/tcp/localhost/${port} && echo CONNECTED && cat <&3 )`,
          `/usr/bin/python3 -c 'import socket; socket.create_connection(("127.0.0.1", ${port}), timeout=3); print("CONNECTED")'`,
        ];
        for (const attempt of attempts) {
          for (const result of [
            await sandbox.session().run(attempt, { timeoutMs: 10_000 }),
            await sandbox.exec(attempt, { timeoutMs: 10_000 }),
          ]) {
            expect(result.output, attempt).not.toContain('CONNECTED');
            expect(result.output, attempt).not.toContain('hello from the host');
            expect(result.exitCode, attempt).not.toBe(0);
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(server.connections, 'connections the server accepted').toBe(1);
      } finally {
        await server.close();
      }
    });

    it('cannot read secret files in the host temporary directory or home', async ({ sandbox, secrets }) => {
      expect(secrets.length).toBeGreaterThan(0);
      for (const secret of secrets) {
        const result = await sandbox.session().run(`cat '${secret.path}'`);
        expect(result.exitCode, secret.path).not.toBe(0);
        expect(result.output).toContain('No such file');
        expect(result.output).not.toContain(secret.content.trim());
        await expect(sandbox.readFile(secret.path)).rejects.toMatchObject({
          name: 'SandboxError',
          code: 'SANDBOX_IO',
        });
      }
      const tokens = secrets.map((secret) => secret.content.trim()).join('\\|');
      const search = await sandbox.exec(
        `grep -rs -e '${tokens}' /tmp /root /home /var /run; echo "grep=$?"`,
        {
          timeoutMs: 20_000,
        },
      );
      expect(search.output).toMatch(/^grep=[12]\n$/);
    });

    it("cannot read the host process's environment (its API keys), in any process of the sandbox", async ({
      open,
    }) => {
      const name = `INTERCODE_CONFORMANCE_KEY_${randomBytes(4).toString('hex').toUpperCase()}`;
      const value = `key-${randomBytes(16).toString('hex')}`;
      process.env[name] = value;
      try {
        const sandbox = await open();
        const read = 'for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < "$f"; echo; done 2>/dev/null; env';
        for (const result of [await sandbox.session().run(read), await sandbox.exec(read)]) {
          // What was read: at least the command's own environment.
          expect(result.output).toContain('PATH=');
          expect(result.output).not.toContain(value);
          expect(result.output).not.toContain(name);
        }
      } finally {
        delete process.env[name];
      }
    });

    it("names none of the host's sandbox folders in any process's command line", async ({ sandbox }) => {
      const read = 'for f in /proc/[0-9]*/cmdline; do tr "\\0" " " < "$f"; echo; done 2>/dev/null';
      for (const result of [await sandbox.session().run(read), await sandbox.exec(read)]) {
        expect(result.output).toMatch(/\S/);
        expect(result.output).not.toContain(runtimeDir());
      }
    });

    it('has no /etc/shadow', async ({ sandbox }) => {
      const hostHasShadow = existsSync('/etc/shadow');
      const result = await sandbox.session().run('test -e /etc/shadow; echo "exists=$?"; cat /etc/shadow');
      expect(result.output).toContain('exists=1');
      expect(result.exitCode).not.toBe(0);
      await expect(sandbox.readFile('/etc/shadow')).rejects.toMatchObject({ code: 'SANDBOX_IO' });
      // Only root can read the host's shadow file to compare (as another user, mode 0640 root:shadow
      // keeps it from this process as it does from the sandbox).
      const hostShadow = hostHasShadow ? readableText('/etc/shadow') : null;
      if (hostShadow !== null) {
        const firstLine = hostShadow.split('\n')[0] ?? '';
        expect(result.output).not.toContain(firstLine);
      }
    });

    it('cannot write into /usr', async ({ sandbox }) => {
      const probe = `/usr/bin/intercode-probe-${process.pid}-${Date.now()}`;
      const result = await sandbox
        .session()
        .run(
          `touch ${probe}; echo "touch=$?"; rm -f /usr/bin/bash; test -x /usr/bin/bash && echo bash-still-there`,
        );
      expect(result.output).toMatch(/touch=[1-9]/);
      expect(result.output).toContain('bash-still-there');
      await expect(sandbox.writeFile(probe, 'x')).rejects.toMatchObject({ code: 'SANDBOX_IO' });
      expect(existsSync(probe)).toBe(false);
      expect((await sandbox.exec(`test -e ${probe}; echo $?`)).output).toBe('1\n');
    });

    it('survives `rm -rf /`; reset() brings back a pristine sandbox and the host is untouched', {
      timeout: 180_000,
    }, async ({ sandbox, secrets }) => {
      const hostBash = statSync('/usr/bin/bash');
      const shell = sandbox.session();
      // On the host image `rm` walks the host's whole /usr (read-only: every removal fails): 1.3 s with
      // the page cache warm, 13.7 s cold here, and past 45 s once in CI beside the suite's image builds.
      const wiped = await shell.run('rm -rf / --no-preserve-root; echo "rm=$?"', { timeoutMs: 120_000 });
      expect(wiped.timedOut).toBe(false);
      expect(wiped.output).toMatch(/rm=[1-9]/);
      expect((await sandbox.diff()).length, 'the wipe changed the sandbox').toBeGreaterThan(0);
      await sandbox.reset();
      expect(await sandbox.diff()).toEqual([]);
      const after = await shell.run('ls /usr/bin/bash && head -n 1 /etc/passwd | cut -d: -f1 && ls -d /tmp');
      expect(after).toMatchObject({ output: '/usr/bin/bash\nroot\n/tmp\n', exitCode: 0 });
      expect(statSync('/usr/bin/bash').ino).toBe(hostBash.ino);
      for (const secret of secrets) expect(readFileSync(secret.path, 'utf8')).toBe(secret.content);
      expect(existsSync('/etc/passwd')).toBe(true);
    });
  });
}

/** The file's text, or null when this process may not read it. */
function readableText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EACCES') return null;
    throw error;
  }
}
