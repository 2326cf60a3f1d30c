import { fileURLToPath } from 'node:url';
import { currentOwner } from '../../src/core/host/owner.js';
import { daemonRemapsUsers, diskQuotaSupported } from '../../src/sandbox/docker/docker-check.js';
import { dockerClient } from '../../src/sandbox/docker/docker-client.js';
import { DockerProvider } from '../../src/sandbox/docker/docker-provider.js';
import { parseImageRef } from '../../src/sandbox/image-ref.js';
import { ensureDebianImage } from '../../src/sandbox/images/ensure-debian-image.js';
import { describeSandboxConformance } from '../../src/testkit/index.js';
import { describeDockerMissing, dockerUnavailable } from './docker-gate.js';
import { dockerResidue } from './docker-residue.js';

// The crash-owner fixture runs the compiled package (dist/): `npm test` builds it first.
const crashOwner = fileURLToPath(new URL('../fixtures/docker-crash-owner.js', import.meta.url));

const reason = await dockerUnavailable();
const image = process.env.INTERCODE_DOCKER_TEST_IMAGE ?? 'debian';

if (reason) {
  describeDockerMissing('sandbox conformance: docker', reason);
} else {
  // Docker limits a container's writable layer only on some storage drivers (overlay2 on XFS with
  // pquota, btrfs, zfs); elsewhere the disk case is skipped, and `intercode doctor` says so.
  const ref = parseImageRef(image);
  if (ref?.kind === 'debian') await ensureDebianImage(ref.profile);
  const diskQuota = await diskQuotaSupported(dockerClient());
  // Container root is host root unless the daemon remaps users; the provider cannot choose.
  const unprivilegedHostIds = await daemonRemapsUsers(dockerClient());
  describeSandboxConformance('docker', () => new DockerProvider(), {
    spec: { image },
    // Containers are children of the daemon, not of this process.
    processesAreDescendants: false,
    // A container's writable layer cannot be copied into a new container under the same image diff.
    fork: false,
    diskQuota,
    unprivilegedHostIds,
    host: {
      currentOwner,
      residue: dockerResidue,
      crashOwnerCommand: [process.execPath, crashOwner],
    },
  });
}
