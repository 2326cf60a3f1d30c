import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BwrapProvider } from '../../src/sandbox/bwrap/bwrap-provider.js';
import { DockerBackend } from '../../src/sandbox/docker/docker-backend.js';
import { DockerProvider } from '../../src/sandbox/docker/docker-provider.js';
import { createProviderRegistry } from '../../src/sandbox/provider-registry.js';

const root = mkdtempSync(join(tmpdir(), 'intercode-image-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What checkImage threw, or undefined. */
function checked(check: (image: string) => void, image: string): unknown {
  try {
    check(image);
    return undefined;
  } catch (error) {
    return error;
  }
}

const invalid = (message: string) => ({ name: 'SandboxError', code: 'SANDBOX_INVALID_SPEC', message });

describe('the default image of each backend', () => {
  it('is host on bwrap and debian on docker, as the registry creates them', () => {
    const registry = createProviderRegistry();
    expect(registry.get('bwrap')().defaultImage).toBe('host');
    expect(registry.get('docker')().defaultImage).toBe('debian');
    expect(new DockerProvider().defaultImage).toBe('debian');
  });
});

describe('checkImage on the docker backend (no daemon needed)', () => {
  const backends = [new DockerBackend(), new DockerProvider()];

  it('takes debian, debian:<profile> and docker:<name>, built or not', () => {
    for (const backend of backends) {
      for (const image of ['debian', 'debian:python', 'debian:ctf', 'docker:busybox:1.36']) {
        expect(
          checked((name) => backend.checkImage(name), image),
          image,
        ).toBeUndefined();
      }
    }
  });

  it('rejects the bwrap forms and unknown names in one line that says what it takes', () => {
    for (const backend of backends) {
      expect(checked((name) => backend.checkImage(name), 'host')).toMatchObject(
        invalid(
          'image "host" is not available on the docker backend (use debian, debian:<profile> or docker:<name>)',
        ),
      );
      for (const image of [`dir:${root}`, 'alpine', 'docker:']) {
        expect(
          checked((name) => backend.checkImage(name), image),
          image,
        ).toMatchObject(
          invalid(
            `image ${JSON.stringify(image)} is not available on the docker backend (use debian, debian:<profile> or docker:<name>)`,
          ),
        );
      }
      expect(checked((name) => backend.checkImage(name), 'debian:nope')).toMatchObject({
        code: 'SANDBOX_INVALID_SPEC',
        message: expect.stringMatching(/^unknown image profile "nope"/),
      });
    }
  });
});

describe('checkImage on the bwrap backend', () => {
  const provider = new BwrapProvider();
  const check = (image: string) => checked((name) => provider.checkImage(name), image);

  it('takes host, an existing directory and Debian profiles, built or not', () => {
    for (const image of ['host', `dir:${root}`, 'debian', 'debian:python', 'debian:ctf']) {
      expect(check(image), image).toBeUndefined();
    }
    expect(provider.size).toBe(0);
  });

  it('rejects docker images, unknown names, missing or unusable directories in one line', () => {
    expect(check('docker:busybox')).toMatchObject(
      invalid(
        'image "docker:busybox" is not available on the bwrap backend (use host, debian, debian:<profile> or dir:/path/to/rootfs)',
      ),
    );
    expect(check('ubuntu')).toMatchObject({ code: 'SANDBOX_INVALID_SPEC' });
    expect(check(`dir:${root}/missing`)).toMatchObject(
      invalid(`image directory does not exist: ${root}/missing`),
    );
    expect(check('dir:relative/root')).toMatchObject({
      code: 'SANDBOX_INVALID_SPEC',
      message: expect.stringMatching(/^layer path must be absolute/),
    });
  });

  it('rejects in create() what checkImage rejects, before starting anything', async () => {
    const fresh = new BwrapProvider();
    try {
      await expect(fresh.create({ image: 'docker:busybox' })).rejects.toMatchObject(
        invalid(
          'image "docker:busybox" is not available on the bwrap backend (use host, debian, debian:<profile> or dir:/path/to/rootfs)',
        ),
      );
      expect(fresh.size).toBe(0);
    } finally {
      await fresh.close();
    }
  });
});
