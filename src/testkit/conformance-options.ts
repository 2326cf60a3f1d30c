import {
  DEFAULT_LIMITS,
  DEFAULT_MAX_OUTPUT_BYTES,
  type SandboxLimits,
  type SandboxProvider,
  type SandboxSpec,
} from '../sandbox/sandbox.js';

/** Something a provider left on the host: a process, a mount, a cgroup, a directory. */
export interface HostResidue {
  readonly kind: 'process' | 'mount' | 'cgroup' | 'directory' | 'other';
  readonly detail: string;
}

/**
 * What only the provider knows about its own footprint on this host. With it the suite checks that
 * closing a provider, and killing its owner process, leave nothing behind.
 */
export interface HostProbe {
  /** The owner label of the providers this process creates (e.g. `<pid>_<start time>`). */
  currentOwner(): string;
  /**
   * Everything of `owner` still on the host; only what belongs to `sandboxIds` when given. Empty when
   * clean. Processes and mounts must vanish on their own; the rest may wait for the next provider.
   */
  residue(
    owner: string,
    sandboxIds?: readonly string[],
  ): readonly HostResidue[] | Promise<readonly HostResidue[]>;
  /**
   * A command that runs `runCrashOwner` (from `intercode/testkit`) for this provider;
   * the suite appends a marker argument. Enables the SIGKILL case.
   */
  readonly crashOwnerCommand?: readonly string[];
}

export interface SandboxConformanceOptions {
  /** Merged into the spec of every sandbox the suite creates (an image, for instance). */
  readonly spec?: SandboxSpec;
  /** Processes inside sandboxes appear in this host's /proc (default: true on Linux). */
  readonly processesVisible?: boolean;
  /** Host-side leak probes; the leak cases are skipped without them. */
  readonly host?: HostProbe;
  /**
   * Sandbox processes are descendants of the process that owns the provider (default true). False
   * for a backend whose processes a daemon starts (docker: children of containerd-shim); the
   * lifecycle cases then find them through their markers and the host probe only.
   */
  readonly processesAreDescendants?: boolean;
  /**
   * The provider enforces `diskBytes` on this machine (default true). Docker can only where its
   * storage driver limits a container's writable layer; the disk case is skipped otherwise.
   */
  readonly diskQuota?: boolean;
  /**
   * Sandbox processes run as unprivileged host ids, never host root (default true). False for docker
   * on a daemon without `userns-remap` (the daemon decides; the provider cannot).
   */
  readonly unprivilegedHostIds?: boolean;
  /**
   * The backend's sandboxes can `fork` (default true); false for one that cannot copy a writable
   * layer (docker), whose sandboxes must then have no `fork` at all.
   */
  readonly fork?: boolean;
  /** Sandboxes created at once in the concurrency case (default 32). */
  readonly concurrentSandboxes?: number;
  /** Commands run in one session in the endurance case (default 1000). */
  readonly sessionCommands?: number;
}

/** Options with every default filled in, plus the limits the suite's sandboxes get. */
export interface ResolvedOptions {
  readonly spec: SandboxSpec;
  readonly processesVisible: boolean;
  readonly processesAreDescendants: boolean;
  readonly diskQuota: boolean;
  readonly unprivilegedHostIds: boolean;
  readonly fork: boolean;
  readonly host: HostProbe | undefined;
  readonly concurrentSandboxes: number;
  readonly sessionCommands: number;
  readonly limits: SandboxLimits;
  readonly maxOutputBytes: number;
  readonly cwd: string;
}

export function resolveOptions(options: SandboxConformanceOptions): ResolvedOptions {
  const spec = options.spec ?? {};
  return {
    spec,
    processesVisible: options.processesVisible ?? process.platform === 'linux',
    processesAreDescendants: options.processesAreDescendants ?? true,
    diskQuota: options.diskQuota ?? true,
    unprivilegedHostIds: options.unprivilegedHostIds ?? true,
    fork: options.fork ?? true,
    host: options.host,
    concurrentSandboxes: options.concurrentSandboxes ?? 32,
    sessionCommands: options.sessionCommands ?? 1000,
    limits: { ...DEFAULT_LIMITS, ...spec.limits },
    maxOutputBytes: spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    cwd: spec.cwd ?? '/',
  };
}

/** `spec` over `base`, limits merged field by field. */
export function mergeSpec(base: SandboxSpec, spec: SandboxSpec = {}): SandboxSpec {
  return { ...base, ...spec, limits: { ...base.limits, ...spec.limits } };
}

/** Everything a group of cases needs. */
export interface ConformanceContext {
  readonly options: ResolvedOptions;
  readonly createProvider: () => SandboxProvider | Promise<SandboxProvider>;
  /** The provider shared by the cases of the current block (only valid inside a test). */
  provider(): SandboxProvider;
}
