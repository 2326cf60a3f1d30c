import { chmodSync, existsSync, rmdirSync, rmSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { SandboxError } from '../../core/errors.js';
import { trackForExit } from '../../core/host/exit-cleanup.js';
import { currentOwner, isOwnerAlive } from '../../core/host/owner.js';
import { reapStaleRuntimeDirs, runtimeDir } from '../../core/host/runtime-dir.js';
import { BaseProvider, type OpenSpec } from '../base-provider.js';
import { Cgroup, detectCgroups, reapStaleCgroups } from '../cgroups.js';
import { clockLibraryPath, clockLibraryUnder } from '../deterministic-clock.js';
import { hostPython } from '../host-python.js';
import { type ImageRef, imageRefOn } from '../image-ref.js';
import { builtDebianImage } from '../images/debian-image.js';
import { prepareHostImage } from '../images/host-image.js';
import { profileHasClockLibrary } from '../images/image-profiles.js';
import { FULL_LIMIT_GUARANTEES, type LimitGuarantees, RLIMIT_ONLY_GUARANTEES } from '../limit-guarantees.js';
import { MountHelper } from '../overlay/mount-helper.js';
import type { ProviderCheck } from '../sandbox.js';
import { checkBwrap } from './bwrap-check.js';
import { BwrapSandbox, type BwrapSandboxConfig, newSandboxId } from './bwrap-sandbox.js';

/** An image name the bwrap backend runs. */
export type BwrapImageRef = Extract<ImageRef, { kind: 'host' | 'dir' | 'debian' }>;

interface ImageLayout {
  readonly lowers: readonly string[];
  readonly binds: BwrapSandboxConfig['binds'];
}

let warnedNoCgroups = false;

/**
 * The default sandbox provider on Linux: bubblewrap on a per-sandbox overlay (tmpfs upper layer
 * over read-only image layers), no network, no capabilities, cgroup limits and rlimits (rlimits only
 * where cgroups are not writable: see `limitGuarantees`).
 */
export class BwrapProvider extends BaseProvider<BwrapSandbox, BwrapImageRef> {
  readonly id = 'bwrap';
  /** The host's own /usr with a synthetic /etc: nothing to build. */
  readonly defaultImage = 'host';
  #helper: Promise<MountHelper> | undefined;
  #helperInstance: MountHelper | undefined;
  readonly #owner = currentOwner();
  /** The folders of kept copies (`BwrapSandbox.branch`) not yet released. */
  readonly #kept = new Set<string>();
  #untrack: (() => void) | undefined;
  readonly #warn: (message: string) => void;

  constructor(options: { warn?: (message: string) => void } = {}) {
    super();
    this.#warn = options.warn ?? ((message) => process.emitWarning(message, 'IntercodeSandboxWarning'));
  }

  #startHelper(): Promise<MountHelper> {
    this.#helper ??= (async () => {
      reapStaleCgroups(isOwnerAlive);
      reapStaleRuntimeDirs();
      // As root, sandboxes are set up by an unprivileged host id (the user namespace's root), which
      // must pass through the runtime folder to reach their mount points (it cannot list it).
      if (process.getuid?.() === 0) chmodSync(runtimeDir(), 0o711);
      const helper = await MountHelper.start(hostPython());
      this.#helperInstance = helper;
      this.#untrack = trackForExit({ closeSync: () => this.#closeSync() });
      return helper;
    })().catch((error: unknown) => {
      this.#helper = undefined;
      throw IntercodeSandboxStart(error);
    });
    return this.#helper;
  }

  protected imageRef(image: string): BwrapImageRef {
    const ref = imageRefOn(image, {
      backend: 'bwrap',
      kinds: ['host', 'dir', 'debian'],
      usage: 'host, debian, debian:<profile> or dir:/path/to/rootfs',
    });
    if (ref.kind === 'dir') {
      checkLayerPath(ref.path);
      if (!existsSync(ref.path))
        throw new SandboxError('SANDBOX_INVALID_SPEC', `image directory does not exist: ${ref.path}`);
    }
    return ref;
  }

  protected clockLibraryOf(image: BwrapImageRef): string | null {
    switch (image.kind) {
      case 'host':
        return clockLibraryUnder('/');
      case 'dir':
        return clockLibraryUnder(image.path);
      case 'debian':
        return profileHasClockLibrary(image.profile) ? clockLibraryPath() : null;
    }
  }

  /** The overlay's layers must fit its mount options. */
  protected override checkLayer(path: string): void {
    checkLayerPath(path);
  }

  #layout(image: BwrapImageRef, layers: readonly string[]): ImageLayout {
    const above = [...layers].reverse();
    switch (image.kind) {
      case 'host': {
        const host = prepareHostImage();
        return { lowers: [...above, host.lower], binds: host.binds };
      }
      case 'dir':
        return { lowers: [...above, image.path], binds: [] };
      case 'debian': {
        // A built Debian root (never built here: that takes a minute), its /usr read-only as on the host.
        const debian = builtDebianImage(image.profile);
        return {
          lowers: [...above, debian.rootfs],
          binds: [{ source: join(debian.rootfs, 'usr'), target: '/usr' }],
        };
      }
    }
  }

  protected async open(spec: OpenSpec<BwrapImageRef>): Promise<BwrapSandbox> {
    const { image, layers, label, seed, ...settings } = spec;
    const layout = this.#layout(image, layers);
    const helper = await this.#startHelper();
    const id = newSandboxId();
    const cgroup = Cgroup.create(`${this.#owner}.${id}`, settings.limits);
    if (!cgroup && !warnedNoCgroups) {
      warnedNoCgroups = true;
      const support = detectCgroups();
      this.#warn(
        `cgroups are not writable here (${support.version === null ? support.reason : 'unknown'}): ` +
          'memory is limited per process (address-space rlimit) with no total across processes, ' +
          'processes per command tree (RLIMIT_NPROC), and CPU is not limited',
      );
    }
    return BwrapSandbox.create(id, {
      ...settings,
      helper,
      dir: join(runtimeDir(), this.#owner, id),
      lowers: layout.lowers,
      binds: layout.binds,
      cgroup,
      label: `${this.#owner}.${id}${label ? `.${label}` : ''}`,
      ...(seed ? { seed } : {}),
      kept: this.#kept,
      warn: this.#warn,
      // A copy has the same spec: only the writable layer it starts from differs.
      copy: (upper) => {
        const { onClose: _onClose, ...same } = spec;
        return this.openTracked({ ...same, seed: upper });
      },
    });
  }

  check(): Promise<ProviderCheck> {
    return checkBwrap();
  }

  /** With cgroups, every limit; without (not root, no delegated subtree), rlimits only. */
  limitGuarantees(): LimitGuarantees {
    return detectCgroups().version === null ? RLIMIT_ONLY_GUARANTEES : FULL_LIMIT_GUARANTEES;
  }

  async close(): Promise<void> {
    await this.closeSandboxes();
    const helper = this.#helper;
    this.#helper = undefined;
    this.#helperInstance = undefined;
    if (helper) await (await helper.catch(() => undefined))?.close();
    this.#untrack?.();
    // Kept copies of branches never released: their mounts ended with the helper.
    for (const path of this.#kept) rmSync(path, { recursive: true, force: true });
    this.#kept.clear();
    removeEmptyDir(join(runtimeDir(), this.#owner));
  }

  #closeSync(): void {
    this.closeSandboxesSync();
    this.#helperInstance?.killSync();
  }
}

/** Removes the owner's runtime directory once its last sandbox is gone; another provider may still use it. */
function removeEmptyDir(path: string): void {
  try {
    rmdirSync(path);
  } catch {
    // Not empty (another provider of this process has sandboxes) or already gone.
  }
}

function checkLayerPath(path: string): void {
  if (!isAbsolute(path) || /[:,\n]/.test(path)) {
    throw new SandboxError(
      'SANDBOX_INVALID_SPEC',
      `layer path must be absolute and free of ':' ',' and newlines: ${JSON.stringify(path)}`,
    );
  }
}

function IntercodeSandboxStart(error: unknown): Error {
  if (error instanceof SandboxError) return error;
  return new SandboxError(
    'SANDBOX_UNAVAILABLE',
    `cannot start the bwrap provider: ${(error as Error).message}`,
    {
      cause: error,
    },
  );
}
