import { describe, expect, it } from 'vitest';
import { imageRefOn, parseImageRef } from '../../src/sandbox/image-ref.js';

describe('parseImageRef', () => {
  it('parses every form of image name', () => {
    expect(parseImageRef('host')).toEqual({ kind: 'host' });
    expect(parseImageRef('dir:/srv/root')).toEqual({ kind: 'dir', path: '/srv/root' });
    expect(parseImageRef('debian')).toEqual({ kind: 'debian', profile: 'bash' });
    expect(parseImageRef('debian:ctf')).toEqual({ kind: 'debian', profile: 'ctf' });
    expect(parseImageRef('docker:alpine:3.20')).toEqual({ kind: 'docker', name: 'alpine:3.20' });
  });

  it('gives null for anything else, empty names included', () => {
    for (const image of ['', 'Host', 'ubuntu', 'dir:', 'debian:', 'docker:', ':x', 'podman:x']) {
      expect(parseImageRef(image), image).toBeNull();
    }
  });
});

describe('imageRefOn', () => {
  const support = {
    backend: 'docker',
    kinds: ['debian', 'docker'] as const,
    usage: 'debian or docker:<name>',
  };

  it('returns the parsed name of a form the backend takes', () => {
    expect(imageRefOn('debian:python', support)).toEqual({ kind: 'debian', profile: 'python' });
    expect(imageRefOn('docker:busybox', support)).toEqual({ kind: 'docker', name: 'busybox' });
  });

  it('rejects other forms and unknown names in one line that says what the backend takes', () => {
    for (const image of ['host', 'dir:/x', 'nonsense', 'debian:']) {
      expect(() => imageRefOn(image, support), image).toThrow(
        expect.objectContaining({
          name: 'SandboxError',
          code: 'SANDBOX_INVALID_SPEC',
          message: `image ${JSON.stringify(image)} is not available on the docker backend (use debian or docker:<name>)`,
        }),
      );
    }
  });

  it('rejects a Debian profile that does not exist, and a layer profile, as invalid', () => {
    expect(() => imageRefOn('debian:nope', support)).toThrow(
      expect.objectContaining({ code: 'SANDBOX_INVALID_SPEC', message: expect.stringContaining('"nope"') }),
    );
    expect(() => imageRefOn('debian:nl2bash-fs1', support)).toThrow(
      expect.objectContaining({ code: 'SANDBOX_INVALID_SPEC' }),
    );
  });
});
