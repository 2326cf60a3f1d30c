import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { isOwnerAlive } from '../../core/host/owner.js';
import { dockerClient } from './docker-client.js';
import { LABEL } from './docker-container.js';

/** Containers of intercode on this daemon, with their owner label. */
async function intercodeContainers(docker: Docker): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [LABEL.owner] } });
}

async function remove(docker: Docker, containers: readonly Docker.ContainerInfo[]): Promise<number> {
  const results = await Promise.all(
    containers.map((info) =>
      docker
        .getContainer(info.Id)
        .remove({ force: true })
        .then(
          () => true,
          (error: { statusCode?: number }) => error.statusCode === 404,
        ),
    ),
  );
  return results.filter(Boolean).length;
}

/**
 * Removes the containers of owners on this host that no longer run (a crashed or killed earlier
 * process). Owners on other hosts sharing the daemon are left alone.
 */
export async function reapDeadOwners(docker: Docker): Promise<number> {
  const here = hostname();
  const stale = (await intercodeContainers(docker)).filter((info) => {
    const labels = info.Labels ?? {};
    const owner = labels[LABEL.owner] ?? '';
    return labels[LABEL.host] === here && !isOwnerAlive(owner);
  });
  return remove(docker, stale);
}

/** What `cleanDockerSandboxes` removed. */
export interface DockerCleanReport {
  readonly containers: number;
  readonly images: number;
}

/**
 * `intercode doctor --clean`: removes every intercode container of dead owners on this host and,
 * with `images`, the layered images built for task file systems (they are rebuilt on demand).
 */
export async function cleanDockerSandboxes(
  options: { docker?: Docker; images?: boolean } = {},
): Promise<DockerCleanReport> {
  const docker = options.docker ?? dockerClient();
  const containers = await reapDeadOwners(docker);
  let images = 0;
  if (options.images) {
    for (const image of await docker.listImages({ filters: { reference: ['intercode/layers'] } })) {
      try {
        await docker.getImage(image.Id).remove({ force: false });
        images += 1;
      } catch {
        // In use by a running sandbox.
      }
    }
  }
  return { containers, images };
}
