import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { SANDBOX_BASE_ENV } from '../base-sandbox.js';
import { programSource } from '../program-source.js';
import type { SandboxLimits } from '../sandbox.js';
import { dockerSeccompProfile } from '../seccomp/docker-seccomp-profile.js';
import { dockerFailure } from './supervised-exec.js';

/** The first process of every container: it lives as long as its owner's attachment (`keeper.pl`). */
const keeperSource = programSource(new URL('./keeper.pl', import.meta.url));

/** Labels on everything the docker provider creates. */
export const LABEL = {
  owner: 'intercode.owner',
  host: 'intercode.host',
  sandbox: 'intercode.sandbox',
  role: 'intercode.role',
  label: 'intercode.label',
} as const;

/** Docker's default read-only paths, plus /usr (system files stay read-only; the rest is writable). */
const READONLY_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger', '/usr'];

/**
 * Docker's default masked paths (setting any replaces them), plus /proc/keys and the whole of /sys,
 * which a bwrap sandbox does not have either (nothing in a sandbox needs the host's devices).
 */
const MASKED_PATHS = [
  '/proc/asound',
  '/proc/acpi',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys',
];

/** The sandbox system-call policy as Docker takes it (the same table as bwrap's filter). */
let seccompOption: string | undefined;
function seccompSecurityOpt(): string {
  seccompOption ??= `seccomp=${JSON.stringify(dockerSeccompProfile())}`;
  return seccompOption;
}

/** What the containers of a sandbox (or of a builder) are made from. */
export interface ContainerConfig {
  /** Image id or tag the containers run. */
  readonly image: string;
  readonly limits: SandboxLimits;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The daemon can limit the size of a container's writable layer. */
  readonly diskQuota: boolean;
}

/** The container settings of a sandbox (also used for builders, without the read-only /usr). */
export function containerSpec(
  config: ContainerConfig,
  options: { readonlyUsr?: boolean } = {},
): Docker.ContainerCreateOptions {
  const { limits } = config;
  const memory = limits.memoryBytes;
  return {
    Image: config.image,
    Entrypoint: ['perl', '-e', keeperSource()],
    Cmd: [],
    Hostname: 'sandbox',
    User: '0:0',
    WorkingDir: config.cwd,
    Env: Object.entries({ ...SANDBOX_BASE_ENV, ...config.env }).map(([name, value]) => `${name}=${value}`),
    OpenStdin: true,
    StdinOnce: true,
    AttachStdin: true,
    AttachStdout: false,
    AttachStderr: false,
    Tty: false,
    NetworkDisabled: true,
    Labels: { ...config.labels },
    HostConfig: {
      NetworkMode: 'none',
      AutoRemove: true,
      Memory: memory,
      MemorySwap: memory,
      PidsLimit: limits.pids,
      ...(limits.cpus > 0 ? { NanoCpus: Math.round(limits.cpus * 1e9) } : {}),
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges', seccompSecurityOpt()],
      MaskedPaths: MASKED_PATHS,
      ...(options.readonlyUsr === false ? {} : { ReadonlyPaths: READONLY_PATHS }),
      ShmSize: Math.min(64 * 1024 * 1024, limits.diskBytes),
      Ulimits: [
        { Name: 'fsize', Soft: limits.fileSizeBytes, Hard: limits.fileSizeBytes },
        { Name: 'nofile', Soft: limits.openFiles, Hard: limits.openFiles },
        { Name: 'core', Soft: 0, Hard: 0 },
      ],
      ...(config.diskQuota ? { StorageOpt: { size: String(limits.diskBytes) } } : {}),
    },
  };
}

/** A started container and the attachment that keeps it alive. */
export interface RunningContainer {
  readonly container: Docker.Container;
  readonly lifeline: Duplex;
}

/**
 * Creates and starts a container whose first process lives as long as `lifeline` stays open: when
 * this process dies, the daemon sees the attachment close, the container ends and is removed.
 */
export async function startContainer(
  docker: Docker,
  spec: Docker.ContainerCreateOptions,
): Promise<RunningContainer> {
  let container: Docker.Container;
  try {
    container = await docker.createContainer(spec);
  } catch (error) {
    throw dockerFailure(error, 'cannot create the sandbox container');
  }
  try {
    const lifeline = (await container.attach({
      stream: true,
      stdin: true,
      stdout: false,
      stderr: false,
      hijack: true,
    })) as Duplex;
    lifeline.on('error', () => {});
    lifeline.resume();
    await container.start();
    return { container, lifeline };
  } catch (error) {
    await container.remove({ force: true }).catch(() => {});
    throw dockerFailure(error, 'cannot start the sandbox container');
  }
}
