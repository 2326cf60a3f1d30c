import type Docker from 'dockerode';
import type { CheckItem } from '../../core/host/check-item.js';
import type { ProviderCheck } from '../sandbox.js';
import { dockerClient, dockerEndpoint } from './docker-client.js';

const START_DAEMON =
  'apt-get install -y docker.io && dockerd --data-root /var/lib/intercode-docker --iptables=false ' +
  '--ip-forward=false --bridge=none --host unix:///run/intercode-docker.sock & ' +
  'export DOCKER_HOST=unix:///run/intercode-docker.sock';

interface DaemonInfo {
  readonly Driver?: string;
  readonly DriverStatus?: readonly (readonly string[])[];
  readonly MemoryLimit?: boolean;
  readonly SwapLimit?: boolean;
  readonly PidsLimit?: boolean;
  readonly CpuCfsQuota?: boolean;
  readonly CgroupVersion?: string;
  readonly SecurityOptions?: readonly string[];
}

/**
 * Whether the daemon runs containers in a user namespace (`dockerd --userns-remap`): container
 * root is then an unprivileged host user. The daemon decides this for every container.
 */
export async function daemonRemapsUsers(docker: Docker): Promise<boolean> {
  const info = (await docker.info()) as DaemonInfo;
  return (info.SecurityOptions ?? []).some((option) => option.split(',').includes('name=userns'));
}

/**
 * Whether the daemon limits the size of a container's writable layer (`--storage-opt size`):
 * overlay2 on XFS mounted with project quotas, btrfs, zfs.
 */
export async function diskQuotaSupported(docker: Docker): Promise<boolean> {
  const info = (await docker.info()) as DaemonInfo;
  const backing = info.DriverStatus?.find(([name]) => name === 'Backing Filesystem')?.[1] ?? '';
  if (info.Driver === 'overlay2') return backing === 'xfs' && (await xfsQuota(docker));
  return info.Driver === 'btrfs' || info.Driver === 'zfs';
}

/** overlay2 on XFS needs the pquota mount option: Docker refuses the size option without it. */
async function xfsQuota(docker: Docker): Promise<boolean> {
  try {
    const container = await docker.createContainer({
      Image: 'scratch-probe-does-not-exist',
      HostConfig: { StorageOpt: { size: '16m' } },
    });
    await container.remove({ force: true });
    return true;
  } catch (error) {
    return !/storage-opt|quota/i.test((error as Error).message);
  }
}

/** Whether the docker backend can run here: daemon, API version, limits. */
export async function checkDocker(docker: Docker = dockerClient()): Promise<ProviderCheck> {
  const items: CheckItem[] = [];
  let version: { Version?: string; ApiVersion?: string } | undefined;
  try {
    version = (await docker.version()) as { Version?: string; ApiVersion?: string };
  } catch (error) {
    items.push({
      name: 'Docker daemon',
      ok: false,
      detail: `not reachable at ${dockerEndpoint()}: ${(error as Error).message}`,
      fix: START_DAEMON,
    });
    return { ok: false, items };
  }
  items.push({
    name: 'Docker daemon',
    ok: true,
    detail: `${dockerEndpoint()}: Docker ${version.Version ?? '?'} (API ${version.ApiVersion ?? '?'})`,
  });
  const info = (await docker.info()) as DaemonInfo;
  const limits = [
    ['memory', info.MemoryLimit],
    ['pids', info.PidsLimit],
    ['cpu quota', info.CpuCfsQuota],
  ] as const;
  const missing = limits.filter(([, ok]) => ok === false).map(([name]) => name);
  items.push({
    name: 'resource limits (memory, pids, cpu)',
    ok: missing.length === 0,
    detail:
      missing.length === 0
        ? `enforced (cgroup v${info.CgroupVersion ?? '?'}${info.SwapLimit ? ', swap limited' : ', swap not limited'})`
        : `not enforced by this daemon: ${missing.join(', ')}`,
    fix: 'enable the memory, pids and cpu cgroup controllers in the kernel (cgroup_enable=memory)',
  });
  const remapped = (info.SecurityOptions ?? []).some((option) => option.split(',').includes('name=userns'));
  items.push({
    name: 'sandbox root is an unprivileged host user',
    ok: remapped,
    optional: true,
    detail: remapped
      ? 'the daemon maps container ids to unprivileged host ids (userns-remap)'
      : 'container root is host root (the daemon runs without --userns-remap); no capabilities, the seccomp policy and no-new-privileges still apply',
    fix: 'start dockerd with --userns-remap=default',
  });
  const quota = await diskQuotaSupported(docker).catch(() => false);
  items.push({
    name: 'disk quota of the writable layer',
    ok: quota,
    optional: true,
    detail: quota
      ? `${info.Driver} supports --storage-opt size`
      : `${info.Driver ?? '?'} cannot limit a container's writable layer: diskBytes is not enforced (fileSizeBytes still is)`,
    fix: 'put the Docker data root on XFS mounted with pquota (overlay2), or use the btrfs storage driver',
  });
  return { ok: items.every((item) => item.ok || item.optional), items };
}
