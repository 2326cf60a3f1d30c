import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { diskQuotaSupported } from '../../src/sandbox/docker/docker-check.js';
import { dockerClient, dockerEndpoint } from '../../src/sandbox/docker/docker-client.js';
import { DockerProvider } from '../../src/sandbox/docker/docker-provider.js';
import { currentOwner } from '../../src/sandbox/owner.js';
import { describeSandboxConformance } from '../../src/testkit/index.js';
import { dockerResidue } from './docker-residue.js';

// The crash-owner fixture runs the compiled package (dist/): `npm test` builds it first.
const crashOwner = fileURLToPath(new URL('../fixtures/docker-crash-owner.js', import.meta.url));

/** Why the suite cannot run here, or null when a daemon answers. */
async function unavailable(): Promise<string | null> {
  try {
    await dockerClient().ping();
    return null;
  } catch (error) {
    return `no Docker daemon at ${dockerEndpoint()} (${(error as Error).message}); set DOCKER_HOST or start dockerd`;
  }
}

const reason = await unavailable();
const image = process.env.INTERCODE_DOCKER_TEST_IMAGE ?? 'debian';

if (reason) {
  describe('sandbox conformance: docker', () => {
    // CI starts a daemon and sets INTERCODE_REQUIRE_DOCKER: there, a missing daemon is a failure.
    if (process.env.INTERCODE_REQUIRE_DOCKER) {
      it('has a Docker daemon to test against', () => {
        throw new Error(reason);
      });
    } else {
      it.skip(`skipped: ${reason}`, () => {});
    }
  });
} else {
  // Docker limits a container's writable layer only on some storage drivers (overlay2 on XFS with
  // pquota, btrfs, zfs); elsewhere the disk case is skipped, and `intercode doctor` says so.
  const diskQuota = await diskQuotaSupported(dockerClient());
  if (!diskQuota) {
    describe('sandbox conformance: docker', () => {
      it.skip('disk quota: the storage driver cannot limit a container layer here', () => {});
    });
  }
  describeSandboxConformance('docker', () => new DockerProvider(), {
    spec: { image },
    // Containers are children of the daemon, not of this process.
    processesAreDescendants: false,
    diskQuota,
    host: {
      currentOwner,
      residue: dockerResidue,
      crashOwnerCommand: [process.execPath, crashOwner],
    },
  });
}
