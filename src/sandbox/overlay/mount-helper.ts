import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SandboxError } from '../../core/errors.js';
import { HOST_PYTHON_FLAGS, hostHelperEnv } from '../host-python.js';
import { programSource } from '../program-source.js';
import type { FileChange } from '../sandbox.js';
import { type ScorerBounds, SNAPSHOT_TIMEOUT_MS, scorerBounds } from '../scorer-bounds.js';
import { ScorerLimitError } from '../scorer-limit-error.js';

/**
 * First host uid/gid of the sandboxes' ids when started as root: sandbox root is this unprivileged
 * host id, never host root. Above the ranges Debian and systemd give to users, dynamic users and
 * containers (up to 0x6fffffff), below the 32-bit limit.
 */
export const SANDBOX_IDMAP_BASE = 0x70000000;

/**
 * The walks (`tree-walk.py`), the helper's mounts (`mount-helper.py`, whose header documents the
 * protocol), then its walkers and main loop (`walker-server.py`): one Python program.
 */
const treeWalkSource = programSource(new URL('./tree-walk.py', import.meta.url));
const helperSource = programSource(new URL('./mount-helper.py', import.meta.url));
const renewRootSource = programSource(new URL('./renew-root.py', import.meta.url));
const keepInPlaceSource = programSource(new URL('./keep-in-place.py', import.meta.url));
const walkerServerSource = programSource(new URL('./walker-server.py', import.meta.url));
const mountHelperSource = () =>
  `${treeWalkSource()}\n${helperSource()}\n${renewRootSource()}\n${keepInPlaceSource()}\n${walkerServerSource()}`;

/** A running bwrap sandbox to renew in place (see `renew-root.py`). */
export interface RenewRequest {
  readonly dir: string;
  readonly lowers: readonly string[];
  readonly sizeBytes: number;
  /** Host pid of the sandbox's bwrap init (pid 1 inside), whose only child is the shell's controller. */
  readonly initPid: number;
  /** The mount points right below the sandbox's root it was started with (binds, /proc, /dev). */
  readonly mounts: readonly string[];
  /** The mounts below /dev besides bwrap's own (the controller's binary). */
  readonly devMounts: readonly string[];
  /** Pids a new sandbox's controller takes at its start that the renewed one does not (`RESTART_SKIPPED_PIDS`). */
  readonly skippedPids: number;
  /**
   * A trusted reset (`SandboxResetOptions.trusted`): the sandbox is kept as it is when nothing of it
   * changed that a renewal would replace (`keep-in-place.py`), else renewed.
   */
  readonly keep?: boolean;
}

/** What a renewal did: kept the sandbox (a trusted reset that found nothing changed), or renewed it, or neither. */
export type RenewResult =
  | { readonly renewed: true; readonly kept: boolean; readonly keepRefused?: string }
  | { readonly renewed: false; readonly why: string };

interface Pending {
  resolve(value: Record<string, unknown>): void;
  reject(error: Error): void;
}

/**
 * Client of the mount helper: one long-lived process per provider, in a private mount namespace,
 * that mounts each sandbox's tmpfs + overlay with direct system calls (well under a millisecond),
 * and walks a sandbox's layers for `diff`, `digest` and `snapshot`, each walk in a walker process
 * it forked, under the `ScorerBounds` in force (a walk past them rejects with a `ScorerLimitError`).
 */
export class MountHelper {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #exited: Error | undefined;
  /** Pid of the helper, whose mount namespace sandboxes enter. */
  readonly pid: number;
  /** True when the helper runs in its own user namespace (not started as root). */
  readonly userNamespace: boolean;
  /**
   * Started as root: the first host uid (and gid) of the sandboxes' id mapping, and the pid of the
   * process holding the user namespace with that mapping (`/proc/<pid>/ns/user`). Every layer and
   * bind is shown through an idmapped mount with the same mapping. Null when not started as root.
   */
  idmap: { readonly base: number; readonly usernsPid: number } | null = null;

  private constructor(child: ChildProcessWithoutNullStreams, userNamespace: boolean) {
    this.#child = child;
    this.pid = child.pid!;
    this.userNamespace = userNamespace;
    createInterface({ input: child.stdout }).on('line', (line) => this.#onLine(line));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    child.on('exit', (code, signal) => {
      this.#exited = new SandboxError(
        'SANDBOX_HELPER_FAILED',
        `mount helper exited (${signal ?? code})${stderr ? `: ${stderr.trim().split('\n').pop()}` : ''}`,
      );
      for (const pending of this.#pending.values()) pending.reject(this.#exited);
      this.#pending.clear();
    });
    child.on('error', () => {});
    child.stdin.on('error', () => {});
  }

  /**
   * Starts the helper in a new mount namespace (and a user namespace when not root). As root, the
   * helper also creates the user namespace of the sandboxes, mapping ids 0..65535 to `idmapBase`..
   */
  static async start(python: string, idmapBase = SANDBOX_IDMAP_BASE): Promise<MountHelper> {
    const root = process.getuid?.() === 0;
    const args = root
      ? ['--mount', '--propagation', 'private', '--', python, ...HOST_PYTHON_FLAGS, '-c', mountHelperSource()]
      : [
          '--user',
          '--map-root-user',
          '--mount',
          '--propagation',
          'private',
          '--',
          python,
          ...HOST_PYTHON_FLAGS,
          '-c',
          mountHelperSource(),
        ];
    const child = spawn('unshare', args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: hostHelperEnv({ INTERCODE_IDMAP_BASE: root ? String(idmapBase) : '' }),
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) =>
        reject(new SandboxError('SANDBOX_UNAVAILABLE', `cannot start unshare: ${error.message}`)),
      );
    });
    const helper = new MountHelper(child, !root);
    const pong = await helper.request({ op: 'ping' });
    if (root) {
      if (typeof pong.userns !== 'number') {
        await helper.close();
        throw new SandboxError('SANDBOX_HELPER_FAILED', 'mount helper: no sandbox user namespace');
      }
      helper.idmap = { base: idmapBase, usernsPid: pong.userns };
    }
    return helper;
  }

  #onLine(line: string): void {
    let reply: Record<string, unknown>;
    try {
      reply = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const pending = this.#pending.get(reply.id as number);
    if (!pending) return;
    this.#pending.delete(reply.id as number);
    if (reply.ok) pending.resolve(reply);
    else if (reply.limit !== undefined)
      pending.reject(ScorerLimitError.fromReply(reply.limit, String(reply.error)));
    else pending.reject(new SandboxError('SANDBOX_HELPER_FAILED', `mount helper: ${String(reply.error)}`));
  }

  request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.#exited) return Promise.reject(this.#exited);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#child.stdin.write(`${JSON.stringify({ ...body, id })}\n`);
    });
  }

  /**
   * Mounts a sandbox's root at `<dir>/root`. With an id mapping, `binds` (host directories) are also
   * mounted read-only and idmapped at `bindPath(dir, i)`, for bwrap to bind from there. With `seed`
   * (the upper layer of another sandbox on the same lowers, its processes stopped), the new upper
   * layer starts as a copy of it: the copy of a sandbox (`Sandbox.fork`).
   */
  async mount(
    dir: string,
    lowers: readonly string[],
    sizeBytes: number,
    binds: readonly string[] = [],
    seed?: string,
  ): Promise<void> {
    await this.request({ op: 'mount', dir, lowers, sizeBytes, binds, ...(seed ? { seed } : {}) });
  }

  /** The upper layer of the sandbox mounted at `dir` (what `diff` and `snapshot` read, a `seed`). */
  static upperPath(dir: string): string {
    return join(dir, 't', 'upper');
  }

  /** Where the helper mounted the `index`-th bind of a sandbox (with an id mapping only). */
  static bindPath(dir: string, index: number): string {
    return join(dir, 'b', String(index));
  }

  /**
   * Keeps a copy of the upper layer `upper` (its sandbox's processes stopped) at `<dir>/upper`, in a
   * tmpfs of `sizeBytes` of its own, as a `seed` for sandboxes opened later (`Sandbox.branch`).
   */
  async keep(upper: string, dir: string, sizeBytes: number): Promise<void> {
    await this.request({ op: 'keep', upper, dir, sizeBytes });
  }

  /** Drops a copy made by `keep` (its tmpfs and the folder `dir`). */
  async unkeep(dir: string): Promise<void> {
    await this.request({ op: 'unkeep', dir });
  }

  async remount(dir: string, lowers: readonly string[], sizeBytes: number): Promise<void> {
    await this.request({ op: 'remount', dir, lowers, sizeBytes });
  }

  /**
   * Mounts a fresh overlay at `dir` and makes it the root of the running sandbox, whose controller
   * has ended every other process (see `renew-root.py`). Returns the reason when the sandbox holds
   * something a new one would not (nothing in the sandbox changed then; the overlay at `dir` may be
   * new): the caller starts a new bwrap instead. A trusted one (`keep`) keeps the sandbox as it is
   * when nothing of it changed (`kept`), else renews it (`keepRefused` says why it was not kept).
   */
  async renew(request: RenewRequest): Promise<RenewResult> {
    const reply = await this.request({ op: 'renew', ...request });
    if (reply.renewed !== true) return { renewed: false, why: String(reply.why) };
    return {
      renewed: true,
      kept: reply.kept === true,
      ...(typeof reply.keepRefused === 'string' ? { keepRefused: reply.keepRefused } : {}),
    };
  }

  async umount(dir: string): Promise<void> {
    await this.request({ op: 'umount', dir });
  }

  /**
   * Changes of the overlay upper layer `upper` against its `lowers` (top first). `upper` is a real
   * directory (never a symbolic link): the walk follows nothing, from there down.
   */
  async diff(
    upper: string,
    lowers: readonly string[],
    bounds: ScorerBounds = scorerBounds(),
  ): Promise<FileChange[]> {
    const reply = await this.request({ op: 'diff', upper, lowers, bounds });
    // The walk yields a directory's entries before the deletions found below an opaque directory,
    // and `a/b` before `a-b`: sort by path as the contract says.
    return (reply.changes as FileChange[]).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Copies the upper layer `upper` into `dest` (whiteouts, opaque markers, owners and times kept). */
  async snapshot(upper: string, dest: string, bounds: ScorerBounds = scorerBounds()): Promise<void> {
    await this.request({
      op: 'snapshot',
      upper,
      dest,
      bounds: { ...bounds, timeoutMs: Math.max(bounds.timeoutMs, SNAPSHOT_TIMEOUT_MS) },
    });
  }

  /** Digests of `paths` below the merged root `root` (see `Sandbox.digest`). */
  async digest(
    root: string,
    paths: readonly string[],
    bounds: ScorerBounds = scorerBounds(),
  ): Promise<Record<string, string | null>> {
    const reply = await this.request({ op: 'digest', root, paths, bounds });
    return reply.digests as Record<string, string | null>;
  }

  async usage(dir: string): Promise<number> {
    const reply = await this.request({ op: 'usage', dir });
    return reply.bytes as number;
  }

  /**
   * For a docker container (`pid`: its init on the host) kept by a trusted reset, or new: its pid
   * numbering started again after `last`, unless its IPC namespace holds a System V object (then
   * why not, and nothing changed; see `reuse_container` in renew-root.py).
   */
  async reuseContainer(pid: number, last: number): Promise<string | undefined> {
    const reply = await this.request({ op: 'reuse_container', pid, last });
    return reply.reused === true ? undefined : String(reply.why);
  }

  /** For a docker container (`pid`: its init on the host): its next process gets the first free pid after `last`. */
  async numberContainer(pid: number, last: number): Promise<void> {
    await this.request({ op: 'number_container', pid, last });
  }

  get alive(): boolean {
    return this.#exited === undefined;
  }

  /** Ends the helper; its mounts vanish with its namespace. */
  close(): Promise<void> {
    if (this.#exited) return Promise.resolve();
    return new Promise((resolve) => {
      this.#child.once('exit', () => resolve());
      this.#child.stdin.end();
      setTimeout(() => this.#child.kill('SIGKILL'), 2000).unref();
    });
  }

  /** Synchronous kill, for process exit handlers. */
  killSync(): void {
    if (!this.#exited) this.#child.kill('SIGKILL');
  }
}
