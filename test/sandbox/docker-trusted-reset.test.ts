import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerProvider } from '../../src/sandbox/docker/docker-provider.js';
import type { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { describeDockerMissing, dockerUnavailable } from './docker-gate.js';

// A trusted reset (an evaluator's, after a gold) keeps the container when nothing of it changed, and
// switches to a new one as any reset does when something did: each kind of change below alone. That
// what is left is pristine either way is the conformance suite's `trusted reset` cases (both backends).

const unavailable = await dockerUnavailable();
const image = process.env.INTERCODE_DOCKER_TEST_IMAGE ?? 'debian';

/**
 * The shell's pid, its command's, a child's of that, and how many processes the container has, counted by the shell's
 * child itself (a pipeline such as `ls /proc | grep -c` counted its own grep or not, as the two
 * raced: CI saw 5 and 6 under load).
 */
async function pidsOf(sandbox: DockerSandbox): Promise<string> {
  const count = 'n=0; for p in /proc/[0-9]*; do n=$((n + 1)); done; echo $n';
  return (await sandbox.session().run(`echo $$ $BASHPID; sh -c "echo \\$\\$"; ${count}`)).output;
}

if (unavailable) {
  describeDockerMissing('docker trusted reset', unavailable);
} else {
  describe('docker trusted reset', () => {
    let provider: DockerProvider;
    let sandbox: DockerSandbox;

    beforeAll(async () => {
      provider = new DockerProvider();
      // Deterministic, as the Bash env's are: libfaketime's shared files in /dev/shm come and go.
      const clockMs = Date.UTC(2023, 5, 1, 12);
      sandbox = (await provider.create({ image, deterministic: { clockMs } })) as DockerSandbox;
    }, 60_000);

    afterAll(async () => {
      await provider?.close();
    });

    /** Runs `command` in the session, then a trusted reset: whether it kept the container, and why not. */
    async function trustedReset(command: string): Promise<{ kept: boolean; why: string | undefined }> {
      expect((await sandbox.session().run(command)).exitCode).toBe(0);
      const before = sandbox.containerId;
      await sandbox.reset({ trusted: true });
      const resets = (await sandbox.stats()).resets;
      return { kept: sandbox.containerId === before, why: resets?.lastRefusal };
    }

    it('keeps the container after read-only commands and background jobs, numbering processes anew', async () => {
      // The pid of a command in a new container; in a kept one, a command gets the same pid, not one
      // counted on from before.
      const pidOf = async () => Number((await sandbox.session().run('sh -c "echo \\$\\$"')).output);
      const fresh = await pidOf();
      const kept = await trustedReset('cd /tmp; X=1; ls -R /usr/share > /dev/null; sleep 100 & date');
      expect(kept.kept, kept.why).toBe(true);
      expect(await pidOf()).toBe(fresh);
      const shell = sandbox.session();
      expect((await shell.run('pwd; declare -p X 2>/dev/null || echo unset')).output).toBe(
        `${shell.cwd}\nunset\n`,
      );
      // The processes before are gone: the container's own ps shows only its init, the shell's and this.
      const ps = await sandbox.exec('ps -e -o comm= | grep -c sleep || true');
      expect(ps.output).toBe('0\n');
      const again = await trustedReset('true');
      expect(again.kept).toBe(true);
      expect((await sandbox.stats()).resets?.inPlace).toBeGreaterThanOrEqual(2);
    });

    it('switches containers when something changed, naming what', async () => {
      const cases: [string, RegExp][] = [
        ['echo x > /tmp/file', /writable layer/],
        ['mkdir /tmp/d && rmdir /tmp/d', /writable layer/],
        ['echo x > /dev/shm/file', /\/dev\/shm holds file/],
        ['ipcmk -M 4096 > /dev/null', /System V/],
      ];
      for (const [command, why] of cases) {
        const result = await trustedReset(command);
        expect({ command, ...result }).toMatchObject({
          command,
          kept: false,
          why: expect.stringMatching(why),
        });
      }
    });

    it('gives the shell and its commands the same pids in new, switched and kept containers', async () => {
      // Docker's exec takes a varying number of pids before its command runs (runc's threads): the
      // numbering is set once the shell's supervisor runs, right before the controller starts.
      const other = (await provider.create({ image })) as DockerSandbox;
      try {
        const seen = [await pidsOf(other)];
        await other.reset();
        seen.push(await pidsOf(other));
        await other.reset({ trusted: true });
        expect((await other.stats()).resets).toMatchObject({ inPlace: 1, relaunched: 1 });
        seen.push(await pidsOf(other));
        await sandbox.reset();
        seen.push(await pidsOf(sandbox));
        expect(new Set(seen)).toEqual(new Set([seen[0]]));
      } finally {
        await other.close();
      }
    });

    it('numbers the shell of the spare container it switches to, whatever took pids there before', async () => {
      // What docker's exec does before its command runs (runc's threads take a varying number of
      // pids), made large: processes run in the spare container after its shell was started ahead.
      const other = (await provider.create({ image })) as DockerSandbox;
      try {
        const first = await pidsOf(other);
        await other.reset();
        for (let i = 0; i < 100 && !(await other.readyAhead()); i++)
          await new Promise((r) => setTimeout(r, 50));
        const docker = new Docker();
        const listed = await docker.listContainers({
          filters: { label: [`intercode.sandbox=${other.id}`] },
        });
        const spare = listed.find((container) => container.Id !== other.containerId);
        expect(spare).toBeDefined();
        const exec = await docker.getContainer(spare!.Id).exec({
          Cmd: ['sh', '-c', 'for i in 1 2 3 4 5 6 7 8; do /bin/true; done'],
        });
        await exec.start({ Detach: true });
        for (let i = 0; i < 100 && (await exec.inspect()).Running; i++)
          await new Promise((r) => setTimeout(r, 20));
        await other.reset();
        expect(other.containerId).toBe(spare!.Id);
        expect(await pidsOf(other)).toBe(first);
      } finally {
        await other.close();
      }
    });

    it('switches on a reset that is not trusted, whatever ran', async () => {
      expect((await sandbox.session().run('true')).exitCode).toBe(0);
      const before = sandbox.containerId;
      await sandbox.reset();
      expect(sandbox.containerId).not.toBe(before);
    });
  });
}
