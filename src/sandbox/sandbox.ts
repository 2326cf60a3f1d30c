import type { Readable, Writable } from 'node:stream';
import type { CheckItem } from '../core/host/check-item.js';
import type { LimitGuarantees } from './limit-guarantees.js';
import type { Quiesced } from './process-freezer.js';

export type { Quiesced } from './process-freezer.js';

/** Resource limits of one sandbox. */
export interface SandboxLimits {
  /** Memory of all processes together (cgroup), bytes. */
  readonly memoryBytes: number;
  /** Processes and threads at once (cgroup). */
  readonly pids: number;
  /** CPU share in cores (cgroup quota); 0 = unlimited. */
  readonly cpus: number;
  /** Size of the writable layer: the disk quota, bytes. */
  readonly diskBytes: number;
  /** Largest file a process may write (rlimit), bytes. */
  readonly fileSizeBytes: number;
  /** Open files per process (rlimit). */
  readonly openFiles: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  memoryBytes: 1024 * 1024 * 1024,
  pids: 256,
  cpus: 0,
  diskBytes: 512 * 1024 * 1024,
  fileSizeBytes: 512 * 1024 * 1024,
  openFiles: 1024,
};

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/** What to create. */
export interface SandboxSpec {
  /** Image name (`host`, `debian`, `debian:<profile>`, `dir:/path`, `docker:<name>`); default: the provider's `defaultImage`. */
  readonly image?: string;
  /** Extra read-only layers on top of the image, lowest first (e.g. a task's prepared file system). */
  readonly layers?: readonly string[];
  readonly limits?: Partial<SandboxLimits>;
  /** Only `none` is supported: sandboxes never reach a network. */
  readonly network?: 'none';
  /** Environment variables of every process in the sandbox (added to a minimal default set). */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory of the shell and of `exec`, default `/`. */
  readonly cwd?: string;
  /** Default time limit per command. */
  readonly timeoutMs?: number;
  /** Default output cap per command. */
  readonly maxOutputBytes?: number;
  /** Free-form label, shown by `intercode doctor` and in process listings. */
  readonly label?: string;
  /**
   * Pins what makes outputs differ between runs: the time zone (UTC), the locale (C.UTF-8), Python's
   * hash seed, and, where the image has libfaketime (`SandboxProvider.clockLibrary`), the clock: every
   * program starts with it at `clockMs` (see `deterministic-clock.ts`). Host name and umask are
   * pinned in every sandbox. `shiftFileTimes`: programs see file times shifted like their clock (the
   * real time a file was written, moved by the clock's offset), as layer builds need; by default they
   * see them as they are.
   */
  readonly deterministic?: { readonly clockMs: number; readonly shiftFileTimes?: boolean };
  /**
   * The main shell (`session()`) starts with its first command instead of with the sandbox, and
   * after a reset again only once used: for a sandbox whose work is programs of its own (`spawn`,
   * the Python env's interpreter), which then never starts a shell it does not use.
   */
  readonly lazyShell?: boolean;
}

export interface ExecOptions {
  readonly timeoutMs?: number;
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly maxOutputBytes?: number;
  /** Bytes fed to the command's standard input (stateless `exec` only). */
  readonly stdin?: string | Uint8Array;
}

/** What a command did. A non-zero exit code is data, never an exception. */
export interface ExecResult {
  /** stdout and stderr interleaved as written, decoded as UTF-8 (invalid bytes become U+FFFD). */
  readonly output: string;
  /** Exit code; 128+N when killed by signal N; null when the command timed out. */
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  /** Present when the output was longer than the cap: head and tail were kept. */
  readonly truncated?: { readonly originalBytes: number };
  readonly durationMs: number;
  /** The shell was restarted after this command (timeout or the shell exited); its variables are gone. */
  readonly sessionRestarted?: boolean;
}

/** A change of the sandbox's file system against its pristine image. */
export interface FileChange {
  readonly path: string;
  readonly kind: 'added' | 'modified' | 'deleted';
  readonly type: 'file' | 'dir' | 'symlink' | 'other';
}

/** A persistent shell: working directory, variables and functions survive between commands. */
export interface ShellSession {
  run(command: string, options?: Omit<ExecOptions, 'stdin' | 'env' | 'cwd'>): Promise<ExecResult>;
  /** Working directory after the last command. */
  readonly cwd: string;
  close(): Promise<void>;
}

/**
 * A long-running process in a sandbox with its own pipes (an interpreter driven over a protocol).
 * It runs under the sandbox's limits and dies with the sandbox (reset, close).
 */
export interface SandboxProcess {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves with the exit code (128+N for signal N) when the process tree is gone. */
  readonly exited: Promise<number>;
  /** Kills the process and everything it started. */
  kill(): void;
}

export interface Sandbox {
  readonly id: string;
  readonly provider: string;
  /** Runs one command in a fresh process tree (no shell state), with `bash -c`. */
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  /** The sandbox's main persistent shell, started with the sandbox (with its first command for `lazyShell`). */
  session(): ShellSession;
  /** Opens an additional persistent shell on the same file system. */
  openSession(): Promise<ShellSession>;
  /**
   * Starts `command` (argv, no shell) in its own process tree with pipes on stdin, stdout and stderr
   * (the Python env's interpreter). Optional: a backend without it cannot run the Python env.
   */
  spawn?(command: readonly string[], options?: Pick<ExecOptions, 'cwd' | 'env'>): Promise<SandboxProcess>;
  readFile(path: string): Promise<Uint8Array>;
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  /** Back to the pristine image: every process is killed, every file change is dropped. */
  reset(options?: SandboxResetOptions): Promise<void>;
  /**
   * Stops every process of the sandbox (none runs, none starts) until `resume()`: what `diff`,
   * `digest` and `snapshot` read then cannot change under them. Scoring calls it first (an agent's
   * process left running, even one started with `setsid`, could otherwise swap what the walk is
   * about to open); processes that cannot be stopped are killed. Commands must not be run meanwhile.
   */
  quiesce(): Promise<Quiesced>;
  /**
   * Added, modified and deleted paths against the pristine image, sorted by path. The walk is
   * bounded (`ScorerBounds`): past a bound it rejects with a `ScorerLimitError`.
   */
  diff(): Promise<FileChange[]>;
  /**
   * Content digests of paths: files by content, directories recursively (names and contents),
   * symbolic links by their target, never followed; null for a path that does not exist. Bounded
   * like `diff`.
   */
  digest(paths: readonly string[]): Promise<Record<string, string | null>>;
  /**
   * Writes the sandbox's changes against its image into `directory`, as a layer that `layers`
   * of a later spec can stack on the same image (how task file systems are built and cached).
   */
  snapshot(directory: string): Promise<void>;
  /**
   * Optional: `count` new sandboxes of the same spec, each starting from this one's state: its file
   * changes against the image (a copy of the writable layer, so a copy's `diff` is against the same
   * pristine image and its `reset` goes back to it) and its main session's shell state (directory
   * and stack, variables exported or not, functions, aliases, `shopt`/`set` options, umask, traps).
   * Not copied: running processes (background jobs, `setsid` daemons), other sessions. This
   * sandbox's processes are stopped while its layer is copied. A backend that cannot copy a
   * writable layer has no `fork`.
   */
  fork?(count: number): Promise<Sandbox[]>;
  /**
   * Optional, where `fork` is: keeps this sandbox's state as it is now, as `fork` would copy it (a
   * copy of the writable layer, taken while this sandbox's processes are stopped, and the main
   * session's shell state), without opening a sandbox. Each `open()` of the branch opens a new
   * sandbox in that state, however this one has changed since; `release()` frees the kept copy.
   */
  branch?(): Promise<SandboxBranch>;
  /** Memory and process figures, for benchmarks and diagnostics. */
  stats(): Promise<SandboxStats>;
  /**
   * Optional, where the provider `resetsAhead`: the figures of what the next reset switches to (a
   * spare container), once it is ready; undefined while none is.
   */
  readyAhead?(): Promise<SandboxStats | undefined>;
  close(): Promise<void>;
}

/** A sandbox's state kept by `Sandbox.branch`, from which sandboxes open later. */
export interface SandboxBranch {
  /** The main shell's working directory when the branch was made. */
  readonly cwd: string;
  /** A new sandbox of the kept state's spec, in that state (as one copy of `fork`). */
  open(): Promise<Sandbox>;
  /** Frees the kept copy of the writable layer; sandboxes opened from it stay. Idempotent. */
  release(): Promise<void>;
}

/** How a reset may go (see `Sandbox.reset`). */
export interface SandboxResetOptions {
  /**
   * Only trusted code ran in the sandbox since its last reset (an evaluator's gold, never an agent's
   * action): a backend whose reset starts a new instance (docker: a new container) may keep the
   * current one when it can check that nothing of it changed (no entry in its writable layer, no
   * process left, nothing new in /dev, no System V object, no TCP socket), ending every process and
   * starting the shell again; bwrap, which renews in place, keeps the sandbox as it is under its
   * shell instead of renewing it when it finds the same. Where it cannot check, or something
   * changed, the reset is as without.
   */
  readonly trusted?: boolean;
}

export interface SandboxStats {
  /** Proportional set size of all processes of the sandbox, bytes. */
  readonly memoryBytes: number;
  /** Resident set size of all processes of the sandbox, bytes (counts shared pages fully). */
  readonly rssBytes: number;
  readonly processes: number;
  /** Bytes used in the writable layer. */
  readonly diskBytes: number;
  /**
   * How the sandbox's resets went: renewed in place around the running shell (bwrap), or a trusted
   * reset that kept its container (docker), against those with a new sandbox process tree or
   * container; `kept` (bwrap): of those in place, the trusted resets that kept the sandbox as it
   * was (nothing of it changed); `lastRefusal` says why the last in-place renewal or keep could not
   * be done.
   */
  readonly resets?: {
    readonly inPlace: number;
    readonly kept?: number;
    readonly relaunched: number;
    readonly lastRefusal?: string;
  };
}

/** What a provider can and cannot enforce on this machine. */
export interface ProviderCheck {
  readonly ok: boolean;
  readonly items: readonly CheckItem[];
}

export interface SandboxProvider {
  readonly id: string;
  /** The image of a spec that names none: what this backend runs out of the box (bwrap `host`, docker `debian`). */
  readonly defaultImage: string;
  create(spec?: SandboxSpec): Promise<Sandbox>;
  /**
   * Checks an image name up front, without creating, building or fetching anything: throws a
   * one-line SandboxError (`SANDBOX_INVALID_SPEC`) naming the images this backend takes when it
   * cannot run `image` (another backend's form, an unknown Debian profile, a missing directory).
   * Whether a Debian image is built yet is for `create` to say.
   */
  checkImage(image: string): void;
  /**
   * Whether `image` starts a sandbox without a build first: false only for a Debian image that is
   * not built yet (nothing is built or fetched). A run uses a dataset's own image only when it is.
   */
  imageBuilt?(image: string): boolean;
  check(): Promise<ProviderCheck>;
  /**
   * Which limits its sandboxes get on this machine, and how (`FULL_LIMIT_GUARANTEES` when absent):
   * a backend that falls back to rlimits says so here.
   */
  limitGuarantees?(): LimitGuarantees;
  /**
   * Where `image` has libfaketime, which a `deterministic` spec needs to pin the clock; null when it
   * has none (the clock then runs as the host's) or when the backend cannot tell (a foreign image).
   */
  clockLibrary?(image: string): string | null;
  /**
   * Its sandboxes make their next pristine state ready while in use, so that a reset only switches
   * to it (docker: a spare container per sandbox, `Sandbox.readyAhead`). An env's own warm pool of
   * such sandboxes would only double them: the envs keep none.
   */
  readonly resetsAhead?: boolean;
  /** Closes every sandbox of this provider and its helpers. */
  close(): Promise<void>;
}
