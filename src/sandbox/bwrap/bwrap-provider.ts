import { existsSync, rmdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { SandboxError } from '../../core/errors.js';
import { trackForExit } from '../../core/host/exit-cleanup.js';
import { currentOwner, isOwnerAlive } from '../../core/host/owner.js';
import { reapStaleRuntimeDirs, runtimeDir } from '../../core/host/runtime-dir.js';
import { Cgroup, detectCgroups, reapStaleCgroups } from '../cgroups.js';
import { hostPython } from '../host-python.js';
import { imageRefOn } from '../image-ref.js';
import { builtDebianImage } from '../images/debian-image.js';
import { prepareHostImage } from '../images/host-image.js';
import { MountHelper } from '../overlay/mount-helper.js';
import {
  DEFAULT_LIMITS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  type ProviderCheck,
  type Sandbox,
  type SandboxProvider,
  type SandboxSpec,
} from '../sandbox.js';
import { checkBwrap } from './bwrap-check.js';
import { BwrapSandbox, type BwrapSandboxConfig, newSandboxId } from './bwrap-sandbox.js';

interface ImageLayout {
  readonly lowers: readonly string[];
  readonly binds: BwrapSandboxConfig['binds'];
}

let warnedNoCgroups = false;

/**
 * The default sandbox provider on Linux: bubblewrap on a per-sandbox overlay (tmpfs upper layer
 * over read-only image layers), no network, no capabilities, cgroup limits and rlimits.
 */
export class BwrapProvider implements SandboxProvider {
  readonly id = 'bwrap';
  #helper: Promise<MountHelper> | undefined;
  #helperInstance: MountHelper | undefined;
  readonly #sandboxes = new Set<BwrapSandbox>();
  readonly #owner = currentOwner();
  #untrack: (() => void) | undefined;
  readonly #warn: (message: string) => void;

  constructor(options: { warn?: (message: string) => void } = {}) {
    this.#warn = options.warn ?? ((message) => process.emitWarning(message, 'IntercodeSandboxWarning'));
  }

  #startHelper(): Promise<MountHelper> {
    this.#helper ??= (async () => {
      reapStaleCgroups(isOwnerAlive);
      reapStaleRuntimeDirs();
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

  #image(spec: SandboxSpec): ImageLayout {
    const layers = [...(spec.layers ?? [])].reverse();
    for (const layer of layers) checkLayerPath(layer);
    const image = bwrapImageRef(spec.image ?? 'host');
    switch (image.kind) {
      case 'host': {
        const host = prepareHostImage();
        return { lowers: [...layers, host.lower], binds: host.binds };
      }
      case 'dir':
        return { lowers: [...layers, image.path], binds: [] };
      case 'debian': {
        // A built Debian root (never built here: that takes a minute), its /usr read-only as on the host.
        const debian = builtDebianImage(image.profile);
        return {
          lowers: [...layers, debian.rootfs],
          binds: [{ source: join(debian.rootfs, 'usr'), target: '/usr' }],
        };
      }
    }
  }

  async create(spec: SandboxSpec = {}): Promise<Sandbox> {
    if (spec.network !== undefined && spec.network !== 'none') {
      throw new SandboxError(
        'SANDBOX_INVALID_SPEC',
        `network "${spec.network}" is not supported: sandboxes have no network`,
      );
    }
    const layout = this.#image(spec);
    const helper = await this.#startHelper();
    const limits = { ...DEFAULT_LIMITS, ...spec.limits };
    const id = newSandboxId();
    const cgroup = Cgroup.create(`${this.#owner}.${id}`, limits);
    if (!cgroup && !warnedNoCgroups) {
      warnedNoCgroups = true;
      const support = detectCgroups();
      this.#warn(
        `cgroups are not writable here (${support.version === null ? support.reason : 'unknown'}): ` +
          'memory falls back to an address-space rlimit, and process counts and CPU are not limited',
      );
    }
    const cwd = spec.cwd ?? '/';
    if (!isAbsolute(cwd))
      throw new SandboxError('SANDBOX_INVALID_SPEC', `cwd must be an absolute path: ${cwd}`);
    let created: BwrapSandbox | undefined;
    const sandbox = await BwrapSandbox.create(id, {
      helper,
      dir: join(runtimeDir(), this.#owner, id),
      lowers: layout.lowers,
      binds: layout.binds,
      limits,
      cgroup,
      env: spec.env ?? {},
      cwd,
      timeoutMs: spec.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxOutputBytes: spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      label: `${this.#owner}.${id}${spec.label ? `.${spec.label}` : ''}`,
      onClose: () => {
        if (created) this.#sandboxes.delete(created);
      },
    });
    created = sandbox;
    this.#sandboxes.add(sandbox);
    return sandbox;
  }

  check(): Promise<ProviderCheck> {
    return checkBwrap();
  }

  /** Number of open sandboxes. */
  get size(): number {
    return this.#sandboxes.size;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sandboxes].map((sandbox) => sandbox.close()));
    const helper = this.#helper;
    this.#helper = undefined;
    this.#helperInstance = undefined;
    if (helper) await (await helper.catch(() => undefined))?.close();
    this.#untrack?.();
    removeEmptyDir(join(runtimeDir(), this.#owner));
  }

  #closeSync(): void {
    for (const sandbox of this.#sandboxes) sandbox.closeSync();
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

/** The parsed image name on the bwrap backend, or a one-line SandboxError naming what it takes. */
function bwrapImageRef(image: string) {
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
