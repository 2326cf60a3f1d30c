import type Docker from 'dockerode';
import type { SandboxStats } from '../sandbox.js';
import { ioFailure } from './container-files.js';

/**
 * A container's figures from the daemon: memory without the page cache, resident memory, processes
 * and, where the daemon limits it (`diskQuota`), the size of its writable layer.
 */
export async function containerStats(container: Docker.Container, diskQuota: boolean): Promise<SandboxStats> {
  try {
    const [stats, info] = await Promise.all([
      container.stats({ stream: false, 'one-shot': true } as { stream: false }),
      diskQuota
        ? container.inspect({ size: true } as never)
        : Promise.resolve(undefined as Docker.ContainerInspectInfo | undefined),
    ]);
    const memory = stats.memory_stats ?? {};
    const detail = (memory.stats ?? {}) as Record<string, number>;
    const cache = detail.total_inactive_file ?? detail.inactive_file ?? 0;
    return {
      memoryBytes: Math.max(0, (memory.usage ?? 0) - cache),
      rssBytes: detail.total_rss ?? detail.rss ?? detail.anon ?? 0,
      processes: stats.pids_stats?.current ?? 0,
      diskBytes: (info as { SizeRw?: number } | undefined)?.SizeRw ?? 0,
    };
  } catch (error) {
    throw ioFailure(error, 'cannot read the sandbox figures');
  }
}
