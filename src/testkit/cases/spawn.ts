import type { Readable } from 'node:stream';
import { describe, expect } from 'vitest';
import type { Sandbox, SandboxProcess } from '../../sandbox/sandbox.js';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';

/** Everything a stream delivers until it ends. */
function collect(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve, reject) => {
    stream.once('end', () => resolve(Buffer.concat(chunks).toString()));
    stream.once('error', reject);
  });
}

/** Resolves once `text` has appeared on `stream`. */
function waitFor(stream: Readable, text: string): Promise<void> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) {
        stream.off('data', onData);
        resolve();
      }
    };
    stream.on('data', onData);
    stream.once('end', () => reject(new Error(`the stream ended without ${JSON.stringify(text)}: ${seen}`)));
  });
}

/**
 * A process tree that appends a line to `file` every 50 ms from a grandchild in a new session (it
 * survives its parent), then says `started` on stdout once the first line is there.
 */
function heartbeat(file: string): readonly string[] {
  const script = `setsid bash -c 'while :; do echo beat >> ${file}; sleep 0.05; done' </dev/null >/dev/null 2>&1 & sleep 1000 & until [ -s ${file} ]; do sleep 0.01; done; echo started; wait`;
  return ['bash', '--norc', '--noprofile', '-c', script];
}

/** Lines in `file` (0 when it does not exist). */
async function beats(sandbox: Sandbox, file: string): Promise<number> {
  const result = await sandbox.exec(`cat ${file} 2>/dev/null | wc -l`);
  return Number(result.output.trim());
}

/** The heartbeat stopped: no new line within ten periods. */
async function expectStopped(sandbox: Sandbox, file: string): Promise<void> {
  const before = await beats(sandbox, file);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await beats(sandbox, file)).toBe(before);
}

/** `spawn`: a long-running process with its own pipes (backends that offer it). */
export function spawnCases(it: ConformanceTest, context: ConformanceContext): void {
  describe('spawn', () => {
    /** The sandbox's spawn; the case is skipped on a backend without it. */
    const withSpawn = (sandbox: Sandbox, skip: (note?: string) => never) => {
      const spawn = sandbox.spawn?.bind(sandbox);
      return spawn ?? skip(`the ${sandbox.provider} backend has no spawn`);
    };

    it('streams stdin to the process and keeps stdout and stderr apart', async ({ sandbox, skip }) => {
      const spawn = withSpawn(sandbox, skip);
      const child: SandboxProcess = await spawn([
        'bash',
        '--norc',
        '--noprofile',
        '-c',
        'while IFS= read -r line; do echo "got $line"; echo "err $line" >&2; done; exit 7',
      ]);
      const stdout = collect(child.stdout);
      const stderr = collect(child.stderr);
      child.stdin.write('one\n');
      await waitFor(child.stdout, 'got one');
      const big = 'x'.repeat(300_000);
      child.stdin.write(`two\n${big}\n`);
      child.stdin.end();
      expect(await child.exited).toBe(7);
      expect(await stdout).toBe(`got one\ngot two\ngot ${big}\n`);
      expect(await stderr).toBe(`err one\nerr two\nerr ${big}\n`);
    });

    it('runs argv without a shell, with the cwd and env options, under the sandbox limits', async ({
      sandbox,
      skip,
    }) => {
      const spawn = withSpawn(sandbox, skip);
      const child = await spawn(['printf', '%s|', '$HOME', 'a b', '*'], {});
      const printed = collect(child.stdout);
      expect(await child.exited).toBe(0);
      expect(await printed).toBe('$HOME|a b|*|');
      const probe = await spawn(
        ['bash', '--norc', '--noprofile', '-c', 'pwd; echo "$GREETING"; ulimit -n; echo "$$"'],
        { cwd: '/tmp', env: { GREETING: 'hello spawn' } },
      );
      const output = collect(probe.stdout);
      expect(await probe.exited).toBe(0);
      const [cwd, greeting, openFiles] = (await output).split('\n');
      expect(cwd).toBe('/tmp');
      expect(greeting).toBe('hello spawn');
      expect(Number(openFiles)).toBe(context.options.limits.openFiles);
      const missing = await spawn(['/no/such/program']);
      collect(missing.stdout);
      collect(missing.stderr);
      expect(await missing.exited).not.toBe(0);
    });

    it('kill() ends the whole tree, also what left its session', async ({ sandbox, skip }) => {
      const spawn = withSpawn(sandbox, skip);
      const child = await spawn(heartbeat('/tmp/beat-kill'));
      await waitFor(child.stdout, 'started');
      child.kill();
      expect(await child.exited).toBe(128 + 9);
      await expectStopped(sandbox, '/tmp/beat-kill');
      expect(await beats(sandbox, '/tmp/beat-kill')).toBeGreaterThan(0);
    });

    it('ends with the sandbox: reset and close kill the tree', async ({ open, skip }) => {
      const sandbox = await open();
      const spawn = withSpawn(sandbox, skip);
      const child = await spawn(heartbeat('/tmp/beat-reset'));
      await waitFor(child.stdout, 'started');
      await sandbox.reset();
      expect(typeof (await child.exited)).toBe('number');
      // A survivor would write the file again on the pristine file system.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await beats(sandbox, '/tmp/beat-reset')).toBe(0);
      const second = await spawn(heartbeat('/tmp/beat-close'));
      await waitFor(second.stdout, 'started');
      await sandbox.close();
      expect(typeof (await second.exited)).toBe('number');
    });
  });
}
