import { describe, it } from 'vitest';
import { dockerClient, dockerEndpoint } from '../../src/sandbox/docker/docker-client.js';

/** Why docker tests cannot run here, or null when a daemon answers. */
export async function dockerUnavailable(): Promise<string | null> {
  try {
    await dockerClient().ping();
    return null;
  } catch (error) {
    return `no Docker daemon at ${dockerEndpoint()} (${(error as Error).message}); set DOCKER_HOST or start dockerd`;
  }
}

/**
 * The stand-in for a docker test suite when no daemon answers: a skipped test whose name says why, or,
 * where CI started a daemon and set INTERCODE_REQUIRE_DOCKER, a failing one.
 */
export function describeDockerMissing(title: string, reason: string): void {
  describe(title, () => {
    if (process.env.INTERCODE_REQUIRE_DOCKER) {
      it('has a Docker daemon to test against', () => {
        throw new Error(reason);
      });
    } else {
      it.skip(`skipped: ${reason}`, () => {});
    }
  });
}
