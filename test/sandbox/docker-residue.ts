import { dockerClient } from '../../src/sandbox/docker/docker-client.js';
import { LABEL } from '../../src/sandbox/docker/docker-container.js';
import type { HostResidue } from '../../src/testkit/index.js';

/**
 * What docker sandboxes of `owner` hold: their containers (any state), and the processes of the
 * running ones. Only those of `sandboxIds` when given.
 */
export async function dockerResidue(owner: string, sandboxIds?: readonly string[]): Promise<HostResidue[]> {
  const docker = dockerClient();
  const containers = await docker.listContainers({
    all: true,
    filters: { label: [`${LABEL.owner}=${owner}`] },
  });
  const residue: HostResidue[] = [];
  for (const info of containers) {
    const id = info.Labels?.[LABEL.sandbox];
    if (sandboxIds && (!id || !sandboxIds.includes(id))) continue;
    const role = info.Labels?.[LABEL.role] ?? '?';
    residue.push({ kind: 'other', detail: `container ${info.Id.slice(0, 12)} (${role}, ${info.State})` });
    if (info.State !== 'running') continue;
    try {
      const top = (await docker.getContainer(info.Id).top()) as { Processes?: string[][] };
      for (const row of top.Processes ?? []) {
        residue.push({ kind: 'process', detail: `${row.join(' ')} in container ${info.Id.slice(0, 12)}` });
      }
    } catch {
      // Gone while listing.
    }
  }
  return residue;
}
