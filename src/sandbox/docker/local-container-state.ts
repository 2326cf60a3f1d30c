import { existsSync, lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type Docker from 'dockerode';
import type { MountHelper } from '../overlay/mount-helper.js';

/** Where a container's first process and writable layer are on this machine. */
export interface ContainerPlace {
  /** Host pid of the container's first process (the keeper). */
  readonly pid: number;
  /** Its overlay2 writable layer (upper directory). */
  readonly upper: string;
  /** Its start time (`/proc/<pid>/stat`), so that a pid used again by another process is never taken for it. */
  readonly started: string;
}

/** The start time of host process `pid`, or undefined when there is none. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * Where the pid numbering of this provider's containers starts (after their init, pid 1): docker's
 * own start of a container uses a varying number of pids before its first command (the shell's pids
 * differed by one or two from container to container), which `/proc` listings show.
 */
const FIRST_LAST = 1;

/**
 * Where the pid numbering is set right before a shell's controller starts (its exec's supervisor
 * waits for its go): docker's exec first runs runc's init (pid 2 after {@link FIRST_LAST}), whose
 * threads take five or six pids before it becomes the supervisor, so the controller (the
 * supervisor's first child) got pid 8 or 9 and every command's pid followed. Set again here, the
 * controller gets 8 in every container.
 */
const SHELL_LAST = 7;

/** What /dev of a started container holds (runc's default devices and mounts); anything else is new. */
const DEV_ENTRIES = new Set([
  'console',
  'core',
  'fd',
  'full',
  'mqueue',
  'null',
  'ptmx',
  'pts',
  'random',
  'shm',
  'stderr',
  'stdin',
  'stdout',
  'tty',
  'urandom',
  'zero',
]);

/** The session-state files of the sandbox's shells in /dev (`STATE_FILE` of `shell-protocol.ts`). */
const SHELL_STATE = /^\.intercode-state-\d+(\.names|\.base)?$/;

/** libfaketime's shared state in /dev/shm, named after the pid (inside) of the process that made it. */
const CLOCK_SHARE = /^(?:faketime_shm_|sem\.faketime_sem_)(\d+)$/;

/** The tasks' children of `pid`: processes left to the container's init. */
function childrenOf(pid: number): number {
  let count = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    count += readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean).length;
  }
  return count;
}

/** The TCP counts of the container's network namespace (a connection in TIME_WAIT outlives its process). */
function tcpInUse(pid: number): boolean {
  const line = readFileSync(`/proc/${pid}/net/sockstat`, 'utf8')
    .split('\n')
    .find((row) => row.startsWith('TCP:'));
  const count = (name: string) => Number(line?.match(new RegExp(`\\b${name} (\\d+)`))?.[1] ?? 'NaN');
  return !(count('inuse') === 0 && count('orphan') === 0 && count('tw') === 0);
}

/**
 * A container's state read from this machine (a local daemon with overlay2, intercode as root): what
 * a trusted reset (`SandboxResetOptions.trusted`) checks before it keeps the container instead of
 * switching to a new one. Its processes must be ended first; the checks then read the writable
 * layer, the init's children, /dev (the ended shells' state files removed), the TCP counts and
 * (through the mount helper, which enters the container's IPC namespace) the System V objects; a
 * container found unchanged then numbers its next processes as a new container does.
 */
export class LocalContainerState {
  readonly #helper: () => Promise<MountHelper | null>;
  constructor(helper: () => Promise<MountHelper | null>) {
    this.#helper = helper;
  }

  /**
   * A new container's place, once its pid numbering was set to start after `FIRST_LAST` (before its
   * first command: a kept container's is set the same way, so the agent's new container and the
   * evaluator's kept one number their processes alike; left as it is where the helper cannot).
   */
  async numbered(container: Docker.Container): Promise<ContainerPlace | null> {
    const place = await this.place(container);
    const helper = place && (await this.#helper());
    if (place && helper) await helper.reuseContainer(place.pid, FIRST_LAST).catch(() => undefined);
    return place;
  }

  /**
   * Before a shell's controller starts in the container at `place` (its supervisor running, waiting
   * to start it): the controller gets the same pid in every container ({@link SHELL_LAST}). Nothing
   * is done when the container's first process is gone (its pid may be another process's now).
   */
  async numberShell(place: ContainerPlace): Promise<void> {
    const helper = await this.#helper();
    if (helper && startTime(place.pid) === place.started) await helper.numberContainer(place.pid, SHELL_LAST);
  }

  /** The container's place, or null when its layers or processes cannot be read here. */
  async place(container: Docker.Container): Promise<ContainerPlace | null> {
    if (process.getuid?.() !== 0) return null;
    let info: Docker.ContainerInspectInfo;
    try {
      info = await container.inspect();
    } catch {
      return null;
    }
    const upper = (info.GraphDriver?.Data as Record<string, string> | undefined)?.UpperDir;
    const pid = info.State?.Pid ?? 0;
    if (info.GraphDriver?.Name !== 'overlay2' || !upper || pid <= 0) return null;
    const started = startTime(pid);
    if (!existsSync(upper) || !lstatSync(upper).isDirectory() || started === undefined) return null;
    return { pid, upper, started };
  }

  /**
   * Why the container is not as it started (undefined: nothing changed, and its pid numbering then
   * starts again after `FIRST_LAST`, as a new one's, see `numbered`); its processes are ended.
   */
  async changed(place: ContainerPlace): Promise<string | undefined> {
    const { pid, upper } = place;
    try {
      if (startTime(pid) !== place.started) return 'its first process is gone';
      if (readdirSync(upper).length > 0) return 'its writable layer holds files';
      if (childrenOf(pid) > 0) return 'a process is left';
      const dev = readdirSync(`/proc/${pid}/root/dev`).filter((name) => {
        // The ended shells' own session-state files (`shell-protocol.ts`): a new shell makes its own.
        if (!SHELL_STATE.test(name)) return true;
        rmSync(`/proc/${pid}/root/dev/${name}`, { force: true });
        return false;
      });
      const extra = dev.find((name) => !DEV_ENTRIES.has(name));
      if (extra !== undefined) return `/dev/${extra} is new`;
      const shm = readdirSync(`/proc/${pid}/root/dev/shm`).filter((name) => {
        // libfaketime's shared clock state of processes now ended (deterministic mode): each makes
        // its own; the keeper's (pid 1 inside) was there from the start. A process that ended as it
        // was listed may remove its own on its way out (`force`: already gone is as good).
        const owner = name.match(CLOCK_SHARE)?.[1];
        if (owner === undefined || owner === '1') return owner === undefined;
        rmSync(`/proc/${pid}/root/dev/shm/${name}`, { force: true });
        return false;
      });
      if (shm.length > 0) return `/dev/shm holds ${shm[0]}`;
      if (readdirSync(`/proc/${pid}/root/dev/mqueue`).length > 0) return 'a POSIX message queue exists';
      if (tcpInUse(pid)) return 'a TCP socket is open or waiting to close';
      const helper = await this.#helper();
      if (!helper) return 'the mount helper is not available';
      // Last: with none, the pid numbering starts again where a new container's shell starts.
      const why = await helper.reuseContainer(pid, FIRST_LAST);
      if (why !== undefined) return why;
    } catch (error) {
      return `its state could not be read: ${error instanceof Error ? error.message : String(error)}`;
    }
    return undefined;
  }
}
