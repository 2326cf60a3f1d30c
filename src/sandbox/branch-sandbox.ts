import { SandboxError } from '../core/errors.js';
import type {
  ExecOptions,
  ExecResult,
  FileChange,
  Quiesced,
  Sandbox,
  SandboxBranch,
  SandboxProcess,
  SandboxStats,
  ShellSession,
} from './sandbox.js';

/**
 * `count` copies of a sandbox's state kept by `Sandbox.branch`, each a sandbox that opens from the
 * branch when first used (the first call of any of its methods), so that a fork costs one copy of
 * the writable layer whatever `count` is, and a copy never used costs nothing more. The branch is
 * released once every copy has opened or been closed.
 */
export function branchCopies(branch: SandboxBranch, count: number, provider: string): BranchSandbox[] {
  let waiting = count;
  const settled = () => {
    waiting -= 1;
    if (waiting === 0) void branch.release();
  };
  return Array.from({ length: count }, () => new BranchSandbox(branch, provider, settled));
}

/** One copy of {@link branchCopies}: a sandbox that opens when first used. */
export class BranchSandbox implements Sandbox {
  readonly provider: string;
  readonly #branch: SandboxBranch;
  readonly #settled: () => void;
  #opening: Promise<Sandbox> | undefined;
  #sandbox: Sandbox | undefined;
  #closed = false;

  constructor(branch: SandboxBranch, provider: string, settled: () => void) {
    this.#branch = branch;
    this.provider = provider;
    this.#settled = settled;
  }

  /** The opened sandbox's id; before that, `branch`. */
  get id(): string {
    return this.#sandbox?.id ?? 'branch';
  }

  /** The sandbox, opened from the branch at the first call. */
  open(): Promise<Sandbox> {
    if (this.#closed) return Promise.reject(closedError());
    this.#opening ??= this.#branch.open().then(
      (sandbox) => {
        this.#settled();
        if (this.#closed) return sandbox.close().then(() => Promise.reject(closedError()));
        this.#sandbox = sandbox;
        return sandbox;
      },
      (error: unknown) => {
        this.#settled();
        throw error;
      },
    );
    return this.#opening;
  }

  exec(command: string, options?: ExecOptions): Promise<ExecResult> {
    return this.open().then((sandbox) => sandbox.exec(command, options));
  }

  /** The main shell; before the sandbox is open, one that opens it at its first command. */
  session(): ShellSession {
    if (this.#sandbox) return this.#sandbox.session();
    const cwd = () => this.#sandbox?.session().cwd ?? this.#branch.cwd;
    return {
      run: (command, options) => this.open().then((sandbox) => sandbox.session().run(command, options)),
      get cwd() {
        return cwd();
      },
      close: () => this.open().then((sandbox) => sandbox.session().close()),
    };
  }

  openSession(): Promise<ShellSession> {
    return this.open().then((sandbox) => sandbox.openSession());
  }

  spawn(command: readonly string[], options?: Pick<ExecOptions, 'cwd' | 'env'>): Promise<SandboxProcess> {
    return this.open().then((sandbox) => {
      if (!sandbox.spawn)
        throw new SandboxError('SANDBOX_UNAVAILABLE', `the ${sandbox.provider} backend cannot spawn`);
      return sandbox.spawn(command, options);
    });
  }

  readFile(path: string): Promise<Uint8Array> {
    return this.open().then((sandbox) => sandbox.readFile(path));
  }

  writeFile(path: string, data: string | Uint8Array): Promise<void> {
    return this.open().then((sandbox) => sandbox.writeFile(path, data));
  }

  reset(): Promise<void> {
    return this.open().then((sandbox) => sandbox.reset());
  }

  quiesce(): Promise<Quiesced> {
    return this.open().then((sandbox) => sandbox.quiesce());
  }

  diff(): Promise<FileChange[]> {
    return this.open().then((sandbox) => sandbox.diff());
  }

  digest(paths: readonly string[]): Promise<Record<string, string | null>> {
    return this.open().then((sandbox) => sandbox.digest(paths));
  }

  snapshot(directory: string): Promise<void> {
    return this.open().then((sandbox) => sandbox.snapshot(directory));
  }

  fork(count: number): Promise<Sandbox[]> {
    return this.open().then((sandbox) => {
      if (!sandbox.fork)
        throw new SandboxError('SANDBOX_UNAVAILABLE', `the ${sandbox.provider} backend cannot fork`);
      return sandbox.fork(count);
    });
  }

  branch(): Promise<SandboxBranch> {
    return this.open().then((sandbox) => {
      if (!sandbox.branch)
        throw new SandboxError('SANDBOX_UNAVAILABLE', `the ${sandbox.provider} backend cannot branch`);
      return sandbox.branch();
    });
  }

  stats(): Promise<SandboxStats> {
    return this.open().then((sandbox) => sandbox.stats());
  }

  /** Closes the sandbox if it opened (or is opening); a copy never used opens nothing. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#opening) {
      this.#settled();
      return;
    }
    const sandbox = await this.#opening.catch(() => undefined);
    await sandbox?.close();
  }
}

function closedError(): SandboxError {
  return new SandboxError('SANDBOX_CLOSED', 'sandbox branch is closed');
}
