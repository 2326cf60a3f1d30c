import type Docker from 'dockerode';
import {
  BaseSandbox,
  type CommandRun,
  type CommandRunOptions,
  endWithin,
  type SandboxSettings,
  type ShellStart,
} from '../base-sandbox.js';
import { FORGET_CLOCK_SHARE } from '../deterministic-clock.js';
import { OutputBuffer } from '../output-buffer.js';
import type { PersistentShell } from '../persistent-shell.js';
import type {
  ExecOptions,
  FileChange,
  Quiesced,
  SandboxProcess,
  SandboxResetOptions,
  SandboxStats,
} from '../sandbox.js';
import { diffContainer, digestContainerPaths, readContainerFile } from './container-files.js';
import { snapshotContainer } from './container-snapshot.js';
import { containerStats } from './container-stats.js';
import {
  type ContainerConfig,
  containerSpec,
  type RunningContainer,
  startContainer,
} from './docker-container.js';
import { dockerControllerCommand, dockerShellProcess } from './docker-shell-process.js';
import { startExecProcess } from './exec-process.js';
import type { ContainerPlace, LocalContainerState } from './local-container-state.js';
import { pauseContainer } from './pause-container.js';
import { execsEnded, SupervisedExec } from './supervised-exec.js';

/** Everything a Docker sandbox needs from its provider. */
export interface DockerSandboxConfig extends SandboxSettings, ContainerConfig {
  readonly docker: Docker;
  /** A never-started container of the same image: the pristine state diff() compares against. */
  readonly pristine: () => Promise<Docker.Container>;
  /** diff() from the container's layers on this machine; null when they cannot be read here. */
  readonly localDiff?: (container: Docker.Container) => Promise<FileChange[] | null>;
  /** The container's state read on this machine, for trusted resets (`SandboxResetOptions.trusted`). */
  readonly localState?: LocalContainerState;
}

/** The shell lines a controller runs first. */
const SHELL_PRELUDE = `ulimit -c 0 2>/dev/null; ${FORGET_CLOCK_SHARE}`;

/** A container started ahead of a reset, with its shell (not yet running). */
interface Spare {
  readonly box: RunningContainer;
  readonly shell: SupervisedExec | undefined;
}

/**
 * A sandbox as a Docker container: commands run under the supervisor in attached execs, files go
 * through the archive API, and a reset switches to a new container of the same image.
 */
export class DockerSandbox extends BaseSandbox {
  readonly provider = 'docker';
  readonly #config: DockerSandboxConfig;
  #box: RunningContainer | undefined;
  readonly #execs = new Set<SupervisedExec>();
  /** A started, untouched container that the next reset() switches to (prepared after a reset). */
  #spare: Promise<Spare> | undefined;
  /** The spare once started (what `readyAhead` measures). */
  #spareReady: Spare | undefined;
  /** The shell started ahead of time in the current container, for the main session to adopt. */
  #shellAhead: SupervisedExec | undefined;
  /** Containers being removed in the background. */
  readonly #removals = new Set<Promise<void>>();
  /** Each container's place on this machine (trusted resets), looked up when it started. */
  readonly #places = new WeakMap<RunningContainer, Promise<ContainerPlace | null>>();
  /** Containers, new or kept, whose next shell is numbered before it starts (`numberShell`). */
  readonly #shellToNumber = new WeakSet<RunningContainer>();
  /** Trusted resets that kept the container, resets that switched, and why the last keep could not be. */
  readonly #resets: { inPlace: number; relaunched: number; lastRefusal?: string } = {
    inPlace: 0,
    relaunched: 0,
  };

  private constructor(id: string, config: DockerSandboxConfig) {
    super(id, config);
    this.#config = config;
  }

  static async create(id: string, config: DockerSandboxConfig): Promise<DockerSandbox> {
    const sandbox = new DockerSandbox(id, config);
    try {
      sandbox.#box = await sandbox.#newBox();
      await sandbox.startMainSession();
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    return sandbox;
  }

  /** The container id (diagnostics). */
  get containerId(): string | undefined {
    return this.#box?.container.id;
  }

  #container(): Docker.Container {
    if (this.closed || !this.#box) throw this.closedError();
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
    return SupervisedExec.start(container, { command, cwd, env, onOutput }).then((exec) => this.#track(exec));
  }

  protected shellStart(): ShellStart {
    return {
      launch: async (onOutput) => {
        const exec = await this.#shellExec(onOutput);
        await this.#numberShell(exec);
        return dockerShellProcess(exec);
      },
      // Starting a shell in a container that is still starting can take longer than one action.
      startTimeoutMs: Math.max(this.#config.timeoutMs, 30_000),
    };
  }

  /** Counts `exec` among the sandbox's running commands (what a reset or close ends) until it ends. */
  #track(exec: SupervisedExec): SupervisedExec {
    this.#execs.add(exec);
    exec.exited.then(() => this.#execs.delete(exec));
    return exec;
  }

  /** The main shell's exec, not yet running: the one started ahead in this container, else a new one. */
  async #shellExec(onOutput: (chunk: Buffer) => void): Promise<SupervisedExec> {
    const ahead = this.#shellAhead;
    this.#shellAhead = undefined;
    if (ahead && !ahead.ended) {
      ahead.onOutput = onOutput;
      return this.#track(ahead);
    }
    ahead?.destroy();
    return this.#start(dockerControllerCommand(SHELL_PRELUDE), this.#config.cwd, {}, onOutput);
  }

  /**
   * Before the first shell of a new or kept container starts (`exec`, its supervisor waiting): once
   * the supervisor runs (docker's start of the exec took its pids), the pid numbering is set, so that
   * the controller's pid (and every command's after it) is the same in every container
   * (`LocalContainerState.numberShell`; left as it is where the helper cannot).
   */
  async #numberShell(exec: SupervisedExec): Promise<void> {
    const box = this.#box;
    const state = this.#config.localState;
    if (!box || !state || !this.#shellToNumber.delete(box)) return;
    await exec.running;
    const place = await this.#places.get(box);
    if (place) await state.numberShell(place).catch(() => undefined);
  }

  protected execScript(): string {
    return `${FORGET_CLOCK_SHARE}; eval "$1"`;
  }

  async spawn(
    command: readonly string[],
    options: Pick<ExecOptions, 'cwd' | 'env'> = {},
  ): Promise<SandboxProcess> {
    const container = this.#container();
    const start = { command, cwd: options.cwd ?? this.#config.cwd, env: options.env ?? {} };
    return startExecProcess(
      (onOutput, onStderr) => SupervisedExec.start(container, { ...start, onOutput, onStderr }),
      (exec) => this.#track(exec),
    );
  }

  /**
   * Runs one command under the supervisor and collects its output within `maxBytes`; its standard
   * error is always merged, so a failure is explained by the last line of output.
   */
  protected async runCommand(command: readonly string[], options: CommandRunOptions): Promise<CommandRun> {
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
    const { exitCode, timedOut } = await endWithin(exec, options.timeoutMs ?? this.#config.timeoutMs);
    const durationMs = performance.now() - started;
    const complaint = () => output.result().text.trim().split('\n').pop() ?? '';
    return { output, exitCode, timedOut, durationMs, complaint };
  }

  async readFile(path: string): Promise<Uint8Array> {
    return readContainerFile(this.#container(), path);
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

  /** Starts the spare container and, in it, the shell the main session will adopt (not yet running; none for a lazy shell). */
  #prepareSpare(): void {
    if (this.closed || this.#spare) return;
    const spare = (async (): Promise<Spare> => {
      const box = await this.#newBox();
      // A lazy main shell starts with its first command: none is started ahead for it.
      const shell = this.lazyShell
        ? undefined
        : await SupervisedExec.start(box.container, {
            command: dockerControllerCommand(SHELL_PRELUDE),
            cwd: this.#config.cwd,
            env: {},
            onOutput: () => {},
          }).catch(() => undefined);
      return { box, shell };
    })();
    spare.then(
      (ready) => {
        if (this.#spare === spare) this.#spareReady = ready;
      },
      () => {},
    );
    this.#spare = spare;
  }

  /** A new container; on this machine numbered as every one is (`LocalContainerState.numbered`). */
  async #newBox(): Promise<RunningContainer> {
    const box = await startContainer(this.#config.docker, containerSpec(this.#config));
    const place = this.#config.localState?.numbered(box.container);
    if (place) this.#places.set(box, place);
    await place;
    this.#shellToNumber.add(box);
    return box;
  }

  /** Ends the given shells and every command (their execs' connections dropped); the execs ended. */
  #endProcesses(sessions: readonly PersistentShell[]): SupervisedExec[] {
    const ended = [...this.#execs];
    for (const session of sessions) session.killSync();
    for (const exec of ended) exec.destroy();
    this.#shellAhead?.destroy();
    this.#shellAhead = undefined;
    return ended;
  }

  /** Ends the given shells, every command and the container (its removal awaited when `wait`). */
  async #killAll(sessions: readonly PersistentShell[], wait = true): Promise<void> {
    this.#endProcesses(sessions);
    const box = this.#box;
    this.#box = undefined;
    await this.#discard(box, wait);
  }

  /**
   * A new container from the image; the old one is removed in the background. After the first
   * reset a spare container is kept started, so that later resets only switch to it.
   */
  override async reset(options: SandboxResetOptions = {}): Promise<void> {
    await super.reset(options);
    this.#prepareSpare();
  }

  protected async renew(
    sessions: readonly PersistentShell[],
    options: SandboxResetOptions = {},
  ): Promise<void> {
    if (options.trusted && (await this.#keptUnchanged(sessions))) {
      this.#resets.inPlace += 1;
      if (this.#box) this.#shellToNumber.add(this.#box);
      return;
    }
    this.#resets.relaunched += 1;
    await this.#killAll(sessions, false);
    if (this.closed) throw this.closedError();
    const spare = this.#spare;
    this.#spare = undefined;
    this.#spareReady = undefined;
    const ready = spare ? await spare.catch(() => undefined) : undefined;
    this.#shellAhead = ready?.shell;
    this.#box = ready?.box ?? (await this.#newBox());
    if (this.closed) {
      await this.#discard(this.#box, true);
      this.#box = undefined;
      throw this.closedError();
    }
  }

  /** A trusted reset's keep: all ended, then checked (`LocalContainerState.changed`); false: switch. */
  async #keptUnchanged(sessions: readonly PersistentShell[]): Promise<boolean> {
    const box = this.#box;
    const state = this.#config.localState;
    if (!box || !state) return false;
    // At most 2 s: a command still running then makes the reset switch containers.
    await execsEnded(this.#endProcesses(sessions), 2_000);
    const place = await (this.#places.get(box) ?? state.place(box.container));
    const why =
      this.#execs.size > 0
        ? 'a command did not end'
        : place === null
          ? "the container's layers cannot be read on this machine"
          : await state.changed(place);
    if (why !== undefined) this.#resets.lastRefusal = why;
    return why === undefined && this.#box === box && !this.closed;
  }

  /**
   * Freezes every process of the container (`docker pause`, the cgroup freezer): the daemon reads
   * its files through the archive API and the host reads its layers, neither needs it running.
   */
  async quiesce(): Promise<Quiesced> {
    const container = this.#container();
    await pauseContainer(container);
    return {
      resume: async () => {
        await container.unpause().catch(() => {});
      },
    };
  }

  async diff(): Promise<FileChange[]> {
    const container = this.#container();
    const local = await this.#config.localDiff?.(container);
    return local ?? diffContainer(container, await this.#config.pristine());
  }

  async digest(paths: readonly string[]): Promise<Record<string, string | null>> {
    return digestContainerPaths(this.#container(), paths);
  }

  async snapshot(directory: string): Promise<void> {
    return snapshotContainer(this.#container(), directory);
  }

  async stats(): Promise<SandboxStats> {
    return {
      ...(await containerStats(this.#container(), this.#config.diskQuota)),
      resets: { ...this.#resets },
    };
  }

  /** The spare container the next reset switches to, once started (see `SandboxProvider.resetsAhead`). */
  async readyAhead(): Promise<SandboxStats | undefined> {
    const ready = this.#spareReady;
    return ready && containerStats(ready.box.container, this.#config.diskQuota);
  }

  protected async release(sessions: readonly PersistentShell[]): Promise<void> {
    const spare = this.#spare;
    this.#spare = undefined;
    this.#spareReady = undefined;
    await Promise.all([
      this.#killAll(sessions),
      spare?.then((ready) => this.#discard(ready.box, true)).catch(() => {}),
      ...this.#removals,
    ]);
  }

  /** Drops every connection; the daemon then ends the container. */
  protected dropSync(): void {
    for (const exec of this.#execs) exec.destroy();
    this.#box?.lifeline.destroy();
    // A spare still starting, or one whose promise has not run its callbacks yet, loses its
    // connection when this process exits, which ends it the same way.
    this.#spare?.then((ready) => ready.box.lifeline.destroy()).catch(() => {});
  }
}
