import { describe, expect, it } from 'vitest';
import { BwrapProvider } from '../../src/sandbox/bwrap/bwrap-provider.js';
import { dockerClient, dockerEndpoint } from '../../src/sandbox/docker/docker-client.js';
import { DockerProvider } from '../../src/sandbox/docker/docker-provider.js';

const reachable = await dockerClient()
  .ping()
  .then(
    () => true,
    () => false,
  );
const image = process.env.INTERCODE_DOCKER_TEST_IMAGE ?? 'debian';

const SETUP = [
  'mkdir -p /work/tree/sub /work/tree/empty',
  "printf 'one\\n' > /work/tree/a.txt",
  "printf 'b\\0inary' > /work/tree/sub/b.bin",
  'ln -s ../a.txt /work/tree/sub/link',
  "printf 'héllo' > '/work/tree/ünï cödé'",
  'ln /work/tree/a.txt /work/tree/hard',
  'mkfifo /work/tree/pipe',
  'ln -s /work/tree /work/via-link',
].join(' && ');
const PATHS = [
  '/work/tree',
  '/work/tree/a.txt',
  '/work/tree/sub/link',
  '/work/via-link',
  '/work/via-link/a.txt',
  '/nope',
];

describe.runIf(reachable || process.env.INTERCODE_REQUIRE_DOCKER)(
  `docker digests (${dockerEndpoint()})`,
  () => {
    it('equal bwrap digests of the same files: content, links, hard links, pipes, names in UTF-8', async () => {
      const bwrap = new BwrapProvider();
      const docker = new DockerProvider();
      try {
        const [left, right] = await Promise.all([bwrap.create({ image }), docker.create({ image })]);
        for (const sandbox of [left, right]) {
          expect((await sandbox.session().run(SETUP)).exitCode).toBe(0);
        }
        const [expected, actual] = await Promise.all([left.digest(PATHS), right.digest(PATHS)]);
        expect(expected['/work/tree']).toMatch(/^dir:[0-9a-f]{32}$/);
        expect(expected['/work/via-link/a.txt']).toBeNull();
        expect(expected['/nope']).toBeNull();
        expect(actual).toEqual(expected);
        // And a change shows in both.
        for (const sandbox of [left, right])
          await sandbox.session().run("printf 'two\\n' > /work/tree/a.txt");
        const [after, afterDocker] = await Promise.all([left.digest(PATHS), right.digest(PATHS)]);
        expect(after['/work/tree']).not.toBe(expected['/work/tree']);
        expect(afterDocker).toEqual(after);
      } finally {
        await Promise.all([bwrap.close(), docker.close()]);
      }
    });
  },
);
