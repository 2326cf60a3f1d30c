/**
 * Which of a sandbox's limits a provider enforces, and how, on this machine. Without cgroups a
 * backend can only set per-process resource limits (rlimits): it must say so here, the conformance
 * suite reads it, and `intercode doctor` reports it.
 */
export interface LimitGuarantees {
  /**
   * `memoryBytes` caps all processes of a sandbox together (a memory cgroup: the process that
   * exceeds it is killed, exit 137). False: it caps each process's address space (RLIMIT_AS; an
   * allocation past it fails, e.g. `MemoryError`), and several processes can together use more.
   */
  readonly totalMemory: boolean;
  /**
   * `pids` caps the processes and threads of a sandbox together (a pids cgroup). False: it caps those
   * of each command's process tree (RLIMIT_NPROC, counted in the tree's own user namespace), so a fork
   * bomb is still contained, but concurrent commands of one sandbox (a session and an `exec`) each
   * get the limit.
   */
  readonly totalProcesses: boolean;
  /** `cpus` is enforced (a CPU quota). False: a sandbox can use every core. */
  readonly cpuQuota: boolean;
}

/** What a backend with cgroups (or a container engine) enforces. */
export const FULL_LIMIT_GUARANTEES: LimitGuarantees = {
  totalMemory: true,
  totalProcesses: true,
  cpuQuota: true,
};

/** What is left with per-process resource limits only. */
export const RLIMIT_ONLY_GUARANTEES: LimitGuarantees = {
  totalMemory: false,
  totalProcesses: false,
  cpuQuota: false,
};
