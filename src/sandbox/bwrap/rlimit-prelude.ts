import type { SandboxLimits } from '../sandbox.js';

/**
 * Processes of a box that its command's count does not include but the sandbox's does: the outer
 * bwrap (in the helper's user namespace) and bwrap's init (pid 1).
 */
const BWRAP_PROCESSES = 2;

/** RLIMIT_NPROC of a box's command tree without a pids cgroup: the box stays within `limits.pids`. */
export function processRlimit(limits: SandboxLimits): number {
  return Math.max(1, limits.pids - BWRAP_PROCESSES);
}

/**
 * The shell lines that set a box's rlimits (soft and hard: no process inside can raise them again, it
 * has no CAP_SYS_RESOURCE). The sandbox's first shell runs them before any user code, so they apply
 * to everything the command starts, and only to it: the harness and other sandboxes keep their own.
 *
 * Without a cgroup (not root, no delegated cgroup v2 subtree) two more stand in for it:
 * - RLIMIT_NPROC. The kernel counts it per user id *in each user namespace* (Linux 5.14 and newer,
 *   "ucounts"), and every box runs in a user namespace of its own (`bwrap --unshare-user`): the
 *   limit counts the processes and threads of this command tree only, not the caller's other
 *   processes nor other sandboxes of the same user. The parent namespaces are checked against the
 *   limit their creator had, which is the caller's own (unlimited for the harness), so the harness is
 *   never limited by a sandbox's count. Sandbox root is never host root (a user namespace; as a root
 *   caller an unprivileged host id), so the root exemption of RLIMIT_NPROC never applies.
 * - RLIMIT_AS: each process's address space, the only memory bound left (not a total across processes).
 */
export function rlimitPrelude(limits: SandboxLimits, cgroup: boolean): string {
  const lines = [
    `ulimit -S -H -f ${Math.max(1, Math.floor(limits.fileSizeBytes / 1024))}`,
    `ulimit -S -H -n ${limits.openFiles}`,
    'ulimit -S -H -c 0',
  ];
  if (!cgroup) {
    lines.push(`ulimit -S -H -u ${processRlimit(limits)}`);
    lines.push(`ulimit -S -H -v ${Math.floor(limits.memoryBytes / 1024)}`);
  }
  return lines.map((line) => `${line} 2>/dev/null`).join('; ');
}
