import { spawnSync } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { type Duplex, PassThrough, Writable } from 'node:stream';
import type Docker from 'dockerode';
import { SandboxError } from '../../core/errors.js';
import { OutputBuffer } from '../output-buffer.js';
import { PersistentShell } from '../persistent-shell.js';
import { programSource } from '../program-source.js';
import type {
  ExecOptions,
  ExecResult,
  FileChange,
  Sandbox,
  SandboxLimits,
  SandboxProcess,
  SandboxStats,
  ShellSession,
} from '../sandbox.js';
import {
  containerChanges,
  diffContainer,
  digestEntries,
  ioFailure,
  pool,
  readArchive,
  statPath,
} from './container-files.js';
import { dockerShellProcess } from './docker-shell-process.js';
import { dockerFailure, SupervisedExec } from './supervised-exec.js';

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

const BASE_ENV: Record<string, string> = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/root',
  USER: 'root',
  LOGNAME: 'root',
  HOSTNAME: 'sandbox',
  LANG: 'C.UTF-8',
  TERM: 'dumb',
  SHELL: '/bin/bash',
};

/** Docker's default read-only paths, plus /usr (system files stay read-only; the rest is writable). */
const READONLY_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger', '/usr'];

/** Files larger than this are not read back through `readFile`. */
const MAX_READ_BYTES = 256 * 1024 * 1024;

/** Everything a Docker sandbox needs from its provider. */
export interface DockerSandboxConfig {
  readonly docker: Docker;
  /** Image id or tag the containers run. */
  readonly image: string;
  readonly limits: SandboxLimits;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly labels: Readonly<Record<string, string>>;
  /** The daemon can limit the size of a container's writable layer. */
  readonly diskQuota: boolean;
  /** A never-started container of the same image: the pristine state diff() compares against. */
  readonly pristine: () => Promise<Docker.Container>;
  /** diff() from the container's layers on this machine; null when they cannot be read here. */
  readonly localDiff?: (container: Docker.Container) => Promise<FileChange[] | null>;
  readonly onClose: () => void;
}

/** The container settings of a sandbox (also used for builders, without the read-only /usr). */
export function containerSpec(
  config: Pick<DockerSandboxConfig, 'image' | 'limits' | 'env' | 'cwd' | 'labels' | 'diskQuota'>,
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
    Env: Object.entries({ ...BASE_ENV, ...config.env }).map(([name, value]) => `${name}=${value}`),
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
      SecurityOpt: ['no-new-privileges'],
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

/** A container started ahead of a reset, with its shell (not yet running). */
interface Spare {
  readonly box: RunningContainer;
  readonly shell: SupervisedExec | undefined;
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

export class DockerSandbox implements Sandbox {
  readonly id: string;
  readonly provider = 'docker';
  readonly #config: DockerSandboxConfig;
  #box: RunningContainer | undefined;
  #main: PersistentShell | undefined;
  readonly #sessions = new Set<PersistentShell>();
  readonly #execs = new Set<SupervisedExec>();
  /** A started, untouched container that the next reset() switches to (prepared after a reset). */
  #spare: Promise<Spare> | undefined;
  /** The shell started ahead of time in the current container, for the main session to adopt. */
  #shellAhead: SupervisedExec | undefined;
  /** Containers being removed in the background. */
  readonly #removals = new Set<Promise<void>>();
  #closed = false;
  #released = false;

  private constructor(id: string, config: DockerSandboxConfig) {
    this.id = id;
    this.#config = config;
  }

  static async create(id: string, config: DockerSandboxConfig): Promise<DockerSandbox> {
    const sandbox = new DockerSandbox(id, config);
    try {
      sandbox.#box = await startContainer(config.docker, containerSpec(config));
      sandbox.#main = await sandbox.#openSession();
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    return sandbox;
  }

  /** The container id, for diagnostics. */
  get containerId(): string | undefined {
    return this.#box?.container.id;
  }

  #container(): Docker.Container {
    if (this.#closed || !this.#box) throw new SandboxError('SANDBOX_CLOSED', `sandbox ${this.id} is closed`);
    return this.#box.container;
  }

  #start(
    command: readonly string[],
    cwd: string,
    env: Readonly<Record<string, string>>,
    onOutput: (chunk: Buffer) => void,
  ): Promise<SupervisedExec> {
    let container: Docker.Container;
    try {
      container = this.#container();
    } catch (error) {
      return Promise.reject(error);
    }
    return SupervisedExec.start(container, { command, cwd, env, onOutput }).then((exec) => {
      this.#execs.add(exec);
      exec.exited.then(() => this.#execs.delete(exec));
      return exec;
    });
  }

  async #openSession(): Promise<PersistentShell> {
    const session = await PersistentShell.open({
      launch: async (onOutput) => {
        const ahead = this.#shellAhead;
        this.#shellAhead = undefined;
        if (ahead && !ahead.ended) {
          ahead.onOutput = onOutput;
          this.#execs.add(ahead);
          ahead.exited.then(() => this.#execs.delete(ahead));
          return dockerShellProcess(ahead);
        }
        ahead?.destroy();
        return dockerShellProcess(
          await this.#start(['bash', '--norc', '--noprofile'], this.#config.cwd, {}, onOutput),
        );
      },
      // Starting a shell in a container that is still starting can take longer than one action.
      startTimeoutMs: Math.max(this.#config.timeoutMs, 30_000),
      prelude: 'ulimit -c 0 2>/dev/null',
      cwd: this.#config.cwd,
      timeoutMs: this.#config.timeoutMs,
      maxOutputBytes: this.#config.maxOutputBytes,
    });
    this.#sessions.add(session);
    return session;
  }

  session(): ShellSession {
    if (!this.#main || this.#closed) throw new SandboxError('SANDBOX_CLOSED', `sandbox ${this.id} is closed`);
    return this.#main;
  }

  openSession(): Promise<ShellSession> {
    if (this.#closed)
      return Promise.reject(new SandboxError('SANDBOX_CLOSED', `sandbox ${this.id} is closed`));
    return this.#openSession();
  }

  async spawn(
    command: readonly string[],
    options: Pick<ExecOptions, 'cwd' | 'env'> = {},
  ): Promise<SandboxProcess> {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const container = this.#container();
    const exec = await SupervisedExec.start(container, {
      command,
      cwd: options.cwd ?? this.#config.cwd,
      env: options.env ?? {},
      onOutput: (chunk) => stdout.write(chunk),
      onStderr: (chunk) => stderr.write(chunk),
    });
    this.#execs.add(exec);
    exec.exited.then(() => {
      this.#execs.delete(exec);
      stdout.end();
      stderr.end();
    });
    exec.go();
    const stdin = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        exec.write(chunk);
        callback();
      },
      final(callback) {
        exec.endInput();
        callback();
      },
    });
    return { stdin, stdout, stderr, exited: exec.exited, kill: () => exec.kill() };
  }

  /** Runs one command under the supervisor and collects its merged output within `maxBytes`. */
  async #run(
    command: readonly string[],
    options: ExecOptions & { maxBytes: number },
  ): Promise<{ output: OutputBuffer; exitCode: number; timedOut: boolean; durationMs: number }> {
    const started = performance.now();
    const output = new OutputBuffer(options.maxBytes);
    const exec = await this.#start(command, options.cwd ?? this.#config.cwd, options.env ?? {}, (chunk) =>
      output.push(chunk),
    );
    exec.go();
    if (options.stdin !== undefined) {
      exec.write(typeof options.stdin === 'string' ? Buffer.from(options.stdin) : options.stdin);
    }
    exec.endInput();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      exec.kill();
    }, options.timeoutMs ?? this.#config.timeoutMs);
    const exitCode = await exec.exited;
    clearTimeout(timer);
    return { output, exitCode, timedOut, durationMs: performance.now() - started };
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const result = await this.#run(
      ['bash', '--norc', '--noprofile', '-c', 'eval "$1"', 'intercode-exec', command],
      {
        ...options,
        maxBytes: options.maxOutputBytes ?? this.#config.maxOutputBytes,
      },
    );
    const { text, truncated } = result.output.result();
    return {
      output: text,
      exitCode: result.timedOut ? null : result.exitCode,
      timedOut: result.timedOut,
      durationMs: result.durationMs,
      ...(truncated ? { truncated } : {}),
    };
  }

  async readFile(path: string): Promise<Uint8Array> {
    const container = this.#container();
    let current = posix.resolve('/', path);
    for (let hops = 0; hops < 40; hops += 1) {
      const stat = await statPath(container, current);
      if (!stat) throw new SandboxError('SANDBOX_IO', `cannot read ${path}: No such file or directory`);
      if (stat.type === 'symlink') {
        current = posix.resolve(posix.dirname(current), stat.linkTarget);
        continue;
      }
      if (stat.type !== 'file')
        throw new SandboxError('SANDBOX_IO', `cannot read ${path}: not a regular file`);
      if (stat.size > MAX_READ_BYTES) {
        throw new SandboxError('SANDBOX_IO', `cannot read ${path}: larger than ${MAX_READ_BYTES} bytes`);
      }
      const entries = await readArchive(container, current);
      const entry = entries?.[0];
      if (entry?.type !== 'file') {
        throw new SandboxError('SANDBOX_IO', `cannot read ${path}: No such file or directory`);
      }
      return new Uint8Array(entry.content);
    }
    throw new SandboxError('SANDBOX_IO', `cannot read ${path}: too many levels of symbolic links`);
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    // Written from inside, like any process there: read-only paths, the disk quota and symbolic
    // links behave exactly as they do for the sandbox's own commands.
    const script = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"';
    const result = await this.#run(['bash', '--norc', '--noprofile', '-c', script, 'intercode-write', path], {
      stdin: data,
      maxBytes: 4096,
    });
    if (result.exitCode !== 0 || result.timedOut) {
      const message = result.output.result().text.trim().split('\n').pop();
      throw new SandboxError('SANDBOX_IO', `cannot write ${path}: ${message || `exit ${result.exitCode}`}`);
    }
  }

  /** Ends a container: its first process sees end-of-file at once, the removal may take a moment. */
  #discard(box: RunningContainer | undefined, wait: boolean): Promise<void> {
    if (!box) return Promise.resolve();
    box.lifeline.destroy();
    const removal = box.container.remove({ force: true }).then(
      () => {},
      () => {},
    );
    if (wait) return removal;
    this.#removals.add(removal);
    removal.then(() => this.#removals.delete(removal));
    return Promise.resolve();
  }

  /** Starts the spare container and, in it, the shell the main session will adopt (not yet running). */
  #prepareSpare(): void {
    if (this.#closed || this.#spare) return;
    const spare = (async (): Promise<Spare> => {
      const box = await startContainer(this.#config.docker, containerSpec(this.#config));
      const shell = await SupervisedExec.start(box.container, {
        command: ['bash', '--norc', '--noprofile'],
        cwd: this.#config.cwd,
        env: {},
        onOutput: () => {},
      }).catch(() => undefined);
      return { box, shell };
    })();
    spare.catch(() => {});
    this.#spare = spare;
  }

  async #killAll(keep?: PersistentShell, wait = true): Promise<void> {
    const sessions = [...this.#sessions].filter((session) => session !== keep);
    for (const session of sessions) {
      this.#sessions.delete(session);
      session.killSync();
    }
    for (const exec of this.#execs) exec.destroy();
    this.#shellAhead?.destroy();
    this.#shellAhead = undefined;
    const box = this.#box;
    this.#box = undefined;
    await this.#discard(box, wait);
  }

  /**
   * A new container from the image; the old one is removed in the background. After the first
   * reset a spare container is kept started, so that later resets only switch to it.
   */
  async reset(): Promise<void> {
    if (this.#closed) throw new SandboxError('SANDBOX_CLOSED', `sandbox ${this.id} is closed`);
    const main = this.#main!;
    await main.restart(async () => {
      await this.#killAll(main, false);
      if (this.#closed) throw new SandboxError('SANDBOX_CLOSED', `sandbox ${this.id} is closed`);
      const spare = this.#spare;
      this.#spare = undefined;
      const ready = spare ? await spare.catch(() => undefined) : undefined;
      this.#shellAhead = ready?.shell;
      this.#box = ready?.box ?? (await startContainer(this.#config.docker, containerSpec(this.#config)));
      if (this.#closed) {
        await this.#discard(this.#box, true);
        this.#box = undefined;
        throw new SandboxError('SANDBOX_CLOSED', `sandbox ${this.id} is closed`);
      }
    });
    this.#prepareSpare();
  }

  async diff(): Promise<FileChange[]> {
    const container = this.#container();
    const local = await this.#config.localDiff?.(container);
    return local ?? diffContainer(container, await this.#config.pristine());
  }

  async digest(paths: readonly string[]): Promise<Record<string, string | null>> {
    const container = this.#container();
    const linkCache = new Map<string, Promise<boolean>>();
    const isLink = (path: string) => {
      let known = linkCache.get(path);
      if (!known) {
        known = statPath(container, path).then((stat) => stat?.type === 'symlink');
        linkCache.set(path, known);
      }
      return known;
    };
    const values = await pool(paths, 8, async (path): Promise<string | null> => {
      const absolute = posix.resolve('/', path);
      // Like bwrap: a path reached through a symbolic link in a parent folder does not exist.
      const parts = absolute.split('/').filter(Boolean);
      for (let i = 1; i < parts.length; i += 1) {
        if (await isLink(`/${parts.slice(0, i).join('/')}`)) return null;
      }
      const entries = await readArchive(container, absolute);
      return entries ? digestEntries(entries) : null;
    });
    return Object.fromEntries(paths.map((path, index) => [path, values[index] ?? null]));
  }

  /**
   * Writes the container's changes as an overlay layer: files, folders and links as they are now,
   * deleted paths as whiteouts (character devices 0/0), ready for `layers` of a later spec.
   */
  async snapshot(directory: string): Promise<void> {
    const container = this.#container();
    const changes = (await containerChanges(container)).sort((a, b) => (a.Path < b.Path ? -1 : 1));
    mkdirSync(directory, { recursive: true });
    const covered: string[] = [];
    for (const change of changes) {
      const path = change.Path;
      if (covered.some((prefix) => path.startsWith(`${prefix}/`))) continue;
      const target = join(directory, path);
      if (change.Kind === 2) {
        mkdirSync(dirname(target), { recursive: true });
        rmSync(target, { recursive: true, force: true });
        const made = spawnSync('mknod', [target, 'c', '0', '0'], { encoding: 'utf8' });
        if (made.status !== 0)
          throw new SandboxError('SANDBOX_IO', `cannot write a whiteout: ${made.stderr.trim()}`);
        continue;
      }
      const stat = await statPath(container, path);
      if (!stat) continue;
      if (stat.type === 'dir' && change.Kind === 0) {
        mkdirSync(target, { recursive: true });
        chmodSync(target, stat.mode);
        continue;
      }
      const entries = await readArchive(container, path);
      if (!entries) continue;
      writeEntries(entries, dirname(target));
      if (stat.type === 'dir') covered.push(path);
    }
  }

  async stats(): Promise<SandboxStats> {
    const container = this.#container();
    try {
      const [stats, info] = await Promise.all([
        container.stats({ stream: false, 'one-shot': true } as { stream: false }),
        this.#config.diskQuota
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

  async close(): Promise<void> {
    if (this.#released) return;
    this.#closed = true;
    this.#released = true;
    const spare = this.#spare;
    this.#spare = undefined;
    await Promise.all([
      this.#killAll(),
      spare?.then((ready) => this.#discard(ready.box, true)).catch(() => {}),
      ...this.#removals,
    ]);
    this.#config.onClose();
  }

  /** Synchronous, for exit handlers: drops every connection; the daemon then ends the container. */
  closeSync(): void {
    this.#closed = true;
    for (const session of this.#sessions) session.killSync();
    for (const exec of this.#execs) exec.destroy();
    this.#box?.lifeline.destroy();
    // A spare still starting, or one whose promise has not run its callbacks yet, loses its
    // connection when this process exits, which ends it the same way.
    this.#spare?.then((ready) => ready.box.lifeline.destroy()).catch(() => {});
  }
}

/** Writes the entries of an archive below `base` (their names are relative to it). */
function writeEntries(
  entries: readonly { name: string; type: string; mode: number; linkName: string; content: Buffer }[],
  base: string,
): void {
  for (const entry of entries) {
    const name = Buffer.from(entry.name.replace(/\/+$/, ''), 'latin1').toString('utf8');
    const target = join(base, name);
    mkdirSync(dirname(target), { recursive: true });
    switch (entry.type) {
      case 'dir':
        mkdirSync(target, { recursive: true });
        chmodSync(target, entry.mode);
        break;
      case 'file':
        rmSync(target, { force: true, recursive: true });
        writeFileSync(target, entry.content, { mode: entry.mode });
        chmodSync(target, entry.mode);
        break;
      case 'symlink':
        rmSync(target, { force: true, recursive: true });
        symlinkSync(Buffer.from(entry.linkName, 'latin1').toString('utf8'), target);
        break;
      case 'hardlink': {
        rmSync(target, { force: true, recursive: true });
        const linked = Buffer.from(entry.linkName.replace(/\/+$/, ''), 'latin1').toString('utf8');
        linkSync(join(base, linked), target);
        break;
      }
      default:
        // Devices, pipes and sockets are not kept in layers.
        break;
    }
  }
}
