import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from '../../core/errors.js';
import { shellQuote } from '../../core/shell-quote.js';
import {
  BaseSandbox,
  type CommandRun,
  type CommandRunOptions,
  endWithin,
  MAX_READ_BYTES,
  SANDBOX_BASE_ENV,
  type SandboxSettings,
  type ShellStart,
} from '../base-sandbox.js';
import type { Cgroup } from '../cgroups.js';
import { FORGET_CLOCK_SHARE } from '../deterministic-clock.js';
import { OutputBuffer } from '../output-buffer.js';
import { MountHelper } from '../overlay/mount-helper.js';
import type { PersistentShell } from '../persistent-shell.js';
import { processTree, type Quiesced, stopProcesses } from '../process-freezer.js';
import type {
  ExecOptions,
  FileChange,
  Sandbox,
  SandboxBranch,
  SandboxProcess,
  SandboxStats,
} from '../sandbox.js';
import { sandboxSeccompProgram } from '../seccomp/seccomp-program.js';
import { controllerArgs } from '../shell-protocol.js';
import { awaitGo, type BoxProcess, startBox } from './box-process.js';
import { bwrapShellProcess } from './bwrap-shell-process.js';
import { CONTROLLER_PATH, prepareControllerBinary } from './controller-binary.js';
import { InPlaceRenewal, observeController } from './in-place-renewal.js';
import { processesMemory } from './process-memory.js';
import { rlimitPrelude } from './rlimit-prelude.js';

/** Everything a bwrap sandbox needs from its provider. */
export interface BwrapSandboxConfig extends SandboxSettings {
  readonly helper: MountHelper;
  readonly dir: string;
  /** Read-only layers, top first. */
  readonly lowers: readonly string[];
  /** Host directories bound read-only: at the same path, or `{ source, target }`. */
  readonly binds: readonly (string | { readonly source: string; readonly target: string })[];
  readonly cgroup: Cgroup | null;
  readonly label: string;
  /** The upper layer the new one starts as a copy of (see `MountHelper.mount`). */
  readonly seed?: string;
  /** The provider's record of kept copies not yet released (`branch`), which it removes at its close. */
  readonly kept: Set<string>;
  /** Opens a sandbox of the same spec whose writable layer starts as a copy of `upper`. */
  readonly copy: (upper: string) => Promise<BwrapSandbox>;
  /** The provider's warnings (a renewal that fails for a reason of this machine). */
  readonly warn: (message: string) => void;
}

export class BwrapSandbox extends BaseSandbox {
  readonly provider = 'bwrap';
  readonly #config: BwrapSandboxConfig;
  readonly #boxes = new Set<BoxProcess>();
  /** The image's bash, execute-only, for the shell controllers (see `controller-binary.ts`). */
  #controller = '';
  /** The sandbox's resets: in place where it allows, else with a new bwrap. */
  readonly #renewals: InPlaceRenewal;

  private constructor(id: string, config: BwrapSandboxConfig) {
    super(id, config);
    this.#config = config;
    this.#renewals = new InPlaceRenewal({
      ...config,
      diskBytes: config.limits.diskBytes,
    });
  }

  static async create(id: string, config: BwrapSandboxConfig): Promise<BwrapSandbox> {
    const sandbox = new BwrapSandbox(id, config);
    mkdirSync(config.dir, { recursive: true });
    try {
      sandbox.#controller = prepareControllerBinary(config.dir, config.lowers, config.binds);
      const binds = config.binds.map((bind) => (typeof bind === 'string' ? bind : bind.source));
      await config.helper.mount(config.dir, config.lowers, config.limits.diskBytes, binds, config.seed);
      await sandbox.startMainSession();
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    return sandbox;
  }

  #bwrapArgs(cwd: string, env: Readonly<Record<string, string>>, unset: readonly string[] = []): string[] {
    const { dir, helper } = this.#config;
    const args = ['--bind', join(dir, 'root'), '/'];
    this.#config.binds.forEach((bind, index) => {
      const { source, target } = typeof bind === 'string' ? { source: bind, target: bind } : bind;
      // With an id mapping, the helper mounted an idmapped copy of the source: bind that one.
      args.push('--ro-bind', helper.idmap ? MountHelper.bindPath(dir, index) : source, target);
    });
    // /proc/keys lists the keys of the sandbox's owner (as non-root, the caller's own): masked as Docker does.
    args.push('--proc', '/proc', '--ro-bind', '/dev/null', '/proc/keys', '--dev', '/dev');
    args.push('--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try');
    // A user namespace of its own, in which no further one can be made: an empty bounding set, and
    // no way to gain capabilities inside (bwrap also sets no_new_privs and loads the seccomp filter).
    args.push('--unshare-user', '--disable-userns');
    args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', 'sandbox');
    args.push('--clearenv');
    for (const [name, value] of Object.entries({ ...SANDBOX_BASE_ENV, ...this.#config.env, ...env })) {
      if (!unset.includes(name)) args.push('--setenv', name, value);
    }
    args.push('--chdir', cwd);
    return args;
  }

  /**
   * rlimits and the umask (022, as in a container, whatever the caller's), set by the shell before
   * any user code: they apply to everything it starts. The clock's shared semaphore is forgotten
   * (see {@link FORGET_CLOCK_SHARE}).
   */
  #prelude(): string {
    const limits = rlimitPrelude(this.#config.limits, this.#config.cgroup !== null);
    return `umask 022; ${FORGET_CLOCK_SHARE}; ${limits}`;
  }

  /**
   * What the shell's controller runs first, before its own prelude: the export of the sandbox's
   * `LD_PRELOAD` (libfaketime in deterministic mode), which its program starts without (see
   * `RENEW_COMMAND`): the programs it starts get the library, the controller makes nothing at its
   * start that a renewal would have to make again, and renews in its own process.
   */
  #controllerPreload(): string {
    const preload = { ...SANDBOX_BASE_ENV, ...this.#config.env }.LD_PRELOAD;
    return preload === undefined ? '' : `builtin export LD_PRELOAD=${shellQuote(preload)}; `;
  }

  #launch(
    command: readonly string[],
    cwd: string,
    env: Readonly<Record<string, string>> = {},
    handshake = false,
    shell = false,
  ): Promise<BoxProcess> {
    if (this.closed) return Promise.reject(this.closedError());
    // The controller's program starts without the preloaded library, which its prelude exports.
    const bwrapArgs = this.#bwrapArgs(cwd, env, shell ? ['LD_PRELOAD'] : []);
    // A shell's controller binary, bound after bwrap's own /dev (a tmpfs outside the file system diff).
    if (shell) bwrapArgs.push('--ro-bind', this.#controller, CONTROLLER_PATH);
    return startBox({
      helperPid: this.#config.helper.pid,
      userNamespace: this.#config.helper.userNamespace,
      usernsPid: this.#config.helper.idmap?.usernsPid ?? null,
      seccomp: sandboxSeccompProgram(),
      bwrapArgs,
      command: handshake ? awaitGo(command) : command,
      channel: shell,
      cgroup: this.#config.cgroup,
      label: this.#config.label,
      handshake,
    }).then((box) => {
      this.#boxes.add(box);
      box.exited.then(() => this.#boxes.delete(box));
      return box;
    });
  }

  protected shellStart(): ShellStart {
    return {
      launch: async (onData) => {
        // bwrap's init stays where bwrap starts it (its --chdir): at the root, which a renewal moves
        // along; the controller goes to the sandbox's directory itself (physically, as bwrap would).
        const prelude = `${this.#controllerPreload()}${this.#prelude()}; CDPATH= builtin cd -P -- ${shellQuote(this.#config.cwd)} || builtin exit 1; builtin unset -v OLDPWD`;
        const box = await this.#launch(
          [CONTROLLER_PATH, ...controllerArgs(prelude, 5, true)],
          '/',
          {},
          false,
          true,
        );
        let baseline: string | null = null;
        return bwrapShellProcess(box, onData, {
          started: async () => {
            baseline = observeController(box.innerPid);
          },
          ...this.#renewals.shellHooks(
            box,
            () => [...this.#boxes].filter((other) => other !== box),
            () => (this.closed ? null : baseline),
          ),
        });
      },
    };
  }

  protected execScript(): string {
    return `${this.#prelude()}; eval "$1" 2>&1`;
  }

  async spawn(
    command: readonly string[],
    options: Pick<ExecOptions, 'cwd' | 'env'> = {},
  ): Promise<SandboxProcess> {
    const script = `${this.#prelude()}; exec "$@"`;
    const box = await this.#launch(
      ['bash', '--norc', '--noprofile', '-c', script, 'intercode-spawn', ...command],
      options.cwd ?? this.#config.cwd,
      options.env ?? {},
      true,
    );
    return {
      stdin: box.stdin,
      stdout: box.stdout,
      stderr: box.stderr,
      exited: box.exited,
      kill: () => box.kill(),
    };
  }

  /** Runs a command in its own process tree and collects raw bytes. */
  protected async runCommand(command: readonly string[], options: CommandRunOptions): Promise<CommandRun> {
    const started = performance.now();
    // A command that runs on its own (no shell reading stdin) waits for the go signal, so that it
    // never starts once its owner is gone.
    const box = await this.#launch(command, options.cwd ?? this.#config.cwd, options.env ?? {}, true);
    const stdout = new OutputBuffer(options.maxBytes);
    let stderr = '';
    box.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    box.stderr.on('data', (chunk: Buffer) => {
      if (options.mergeStderr) stdout.push(chunk);
      else stderr = (stderr + chunk.toString()).slice(-4000);
    });
    box.stdin.end(options.stdin ?? '');
    const { exitCode, timedOut } = await endWithin(box, options.timeoutMs ?? this.#config.timeoutMs);
    // Let the last buffered bytes of the pipes arrive.
    await Promise.all([closed(box.stdout), closed(box.stderr)]);
    const durationMs = performance.now() - started;
    return { output: stdout, exitCode, timedOut, durationMs, complaint: () => stderr.trim() };
  }

  async readFile(path: string): Promise<Uint8Array> {
    const result = await this.runCommand(['cat', '--', path], {
      mergeStderr: false,
      maxBytes: 2 * (MAX_READ_BYTES + 1),
    });
    if (result.exitCode !== 0 || result.timedOut) {
      throw new SandboxError(
        'SANDBOX_IO',
        `cannot read ${path}: ${result.complaint() || `exit ${result.exitCode}`}`,
      );
    }
    if (result.output.totalBytes > MAX_READ_BYTES) {
      throw new SandboxError('SANDBOX_IO', `cannot read ${path}: larger than ${MAX_READ_BYTES} bytes`);
    }
    return result.output.bytes();
  }

  /** Ends the given shells and every other process of the sandbox. */
  async #killAll(sessions: readonly PersistentShell[]): Promise<void> {
    await Promise.all(sessions.map((session) => session.close()));
    const boxes = [...this.#boxes];
    for (const box of boxes) box.kill();
    await Promise.all(boxes.map((box) => box.exited));
    this.#config.cgroup?.killAll();
  }

  protected async renew(sessions: readonly PersistentShell[]): Promise<void> {
    this.#renewals.relaunched();
    await this.#killAll(sessions);
    await this.#config.helper.remount(this.#config.dir, this.#config.lowers, this.#config.limits.diskBytes);
  }

  /**
   * Every process of the sandbox: its cgroup's (each box joins it before its command runs, and no
   * process inside can leave it), or without cgroups the trees of its outer bwrap processes.
   */
  #allPids(): number[] {
    if (this.#config.cgroup) return this.#config.cgroup.pids();
    const roots = [...this.#boxes].map((box) => box.child.pid).filter((pid) => pid !== undefined);
    return processTree(roots);
  }

  quiesce(): Promise<Quiesced> {
    if (this.closed) return Promise.reject(this.closedError());
    return stopProcesses(() => this.#allPids());
  }

  diff(): Promise<FileChange[]> {
    if (this.closed) return Promise.reject(this.closedError());
    return this.#config.helper.diff(MountHelper.upperPath(this.#config.dir), this.#config.lowers);
  }

  /** Copies on the same layers, opened from one branch (see `BaseSandbox.forkFromBranch`). */
  fork(count: number): Promise<Sandbox[]> {
    if (this.closed) return Promise.reject(this.closedError());
    return this.forkFromBranch(count, () => this.branch());
  }

  /**
   * Keeps a copy of the writable layer in a tmpfs of its own next to this sandbox's folder (in the
   * mount helper's namespace, like every sandbox mount); each `open()` opens a copy seeded from it.
   */
  branch(): Promise<SandboxBranch> {
    if (this.closed) return Promise.reject(this.closedError());
    const { helper, dir, limits } = this.#config;
    const kept = `${dir}.kept-${randomBytes(4).toString('hex')}`;
    return this.branchWith(
      async () => {
        this.#config.kept.add(kept);
        try {
          await helper.keep(MountHelper.upperPath(dir), kept, limits.diskBytes);
        } catch (error) {
          await this.#dropKept(kept);
          throw error;
        }
        return kept;
      },
      (path) => this.#config.copy(join(path, 'upper')),
      (path) => this.#dropKept(path),
    );
  }

  async #dropKept(path: string): Promise<void> {
    if (this.#config.helper.alive) await this.#config.helper.unkeep(path).catch(() => undefined);
    rmSync(path, { recursive: true, force: true });
    this.#config.kept.delete(path);
  }

  digest(paths: readonly string[]): Promise<Record<string, string | null>> {
    if (this.closed) return Promise.reject(this.closedError());
    return this.#config.helper.digest(join(this.#config.dir, 'root'), paths);
  }

  async snapshot(directory: string): Promise<void> {
    if (this.closed) throw this.closedError();
    await this.#config.helper.snapshot(MountHelper.upperPath(this.#config.dir), directory);
  }

  async stats(): Promise<SandboxStats> {
    const pids = this.#config.cgroup?.pids() ?? this.#treePids();
    const { memoryBytes, rssBytes } = processesMemory(pids);
    const diskBytes = await this.#config.helper.usage(this.#config.dir);
    return { memoryBytes, rssBytes, processes: pids.length, diskBytes, resets: this.#renewals.stats() };
  }

  #treePids(): number[] {
    return processTree(
      [...this.#boxes].map((box) => box.child.pid).filter((pid): pid is number => pid !== undefined),
    );
  }

  protected async release(sessions: readonly PersistentShell[]): Promise<void> {
    await this.#killAll(sessions);
    await this.#config.cgroup?.remove();
    try {
      if (this.#config.helper.alive) await this.#config.helper.umount(this.#config.dir);
    } catch {
      // The mounts die with the helper's namespace in any case.
    }
    rmSync(this.#config.dir, { recursive: true, force: true });
  }

  protected dropSync(): void {
    for (const box of this.#boxes) box.kill();
    this.#config.cgroup?.removeSync();
  }
}

function closed(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    const readable = stream as NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean };
    if (readable.readableEnded || readable.destroyed) resolve();
    else {
      stream.once('end', () => resolve());
      stream.once('close', () => resolve());
    }
  });
}

/** A short random id for a sandbox. */
export function newSandboxId(): string {
  return randomBytes(6).toString('hex');
}
