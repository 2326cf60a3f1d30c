import type { CheckItem } from '../../core/host/check-item.js';
import type { CgroupSupport } from '../cgroups.js';

const FIX_CGROUPS =
  'run as root, or from a systemd user session on cgroup v2 (its user@UID.service subtree is delegated to the user: systemd-run --user --scope intercode ...)';

/** Linux counts RLIMIT_NPROC per user namespace from 5.14 on ("ucounts"). */
function perNamespaceNproc(kernelRelease: string): boolean {
  const [major = 0, minor = 0] = kernelRelease.split('.').map((part) => Number.parseInt(part, 10));
  return major > 5 || (major === 5 && minor >= 14);
}

/**
 * The `intercode doctor` lines of the bwrap backend's resource limits: with cgroups every limit holds
 * for the sandbox as a whole; without, what the rlimit fallback guarantees and what it does not.
 */
export function limitsCheck(cgroups: CgroupSupport, kernelRelease: string): CheckItem[] {
  if (cgroups.version !== null) {
    return [
      {
        name: 'resource limits',
        ok: true,
        detail: `cgroup v${cgroups.version}: memory, processes and CPU per sandbox (all its processes together)`,
      },
    ];
  }
  const items: CheckItem[] = [
    {
      name: 'resource limits',
      ok: false,
      optional: true,
      detail:
        `rlimits only, no cgroups (${cgroups.reason}): memory is capped per process, not in total ` +
        "across a sandbox's processes; processes per command tree (a fork bomb is contained); no CPU quota",
      fix: FIX_CGROUPS,
    },
  ];
  if (!perNamespaceNproc(kernelRelease)) {
    items.push({
      name: 'process limit without cgroups',
      ok: false,
      optional: true,
      detail:
        `kernel ${kernelRelease} counts RLIMIT_NPROC per user, not per user namespace (Linux 5.14): ` +
        "every sandbox's process limit counts all of this user's processes",
      fix: `upgrade the kernel to 5.14 or newer, or ${FIX_CGROUPS}`,
    });
  }
  return items;
}
