import { isAbsolute } from 'node:path';
import { SandboxError } from '../core/errors.js';
import { clocklessLayer } from './clockless-layer.js';
import { deterministicEnv } from './deterministic-clock.js';
import { parseImageRef } from './image-ref.js';
import { debianImageStatus } from './images/debian-image.js';
import {
  DEFAULT_LIMITS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  type ProviderCheck,
  type Sandbox,
  type SandboxLimits,
  type SandboxProvider,
  type SandboxSpec,
} from './sandbox.js';

/** A spec checked, with every default filled in and its image parsed: what a backend opens. */
export interface OpenSpec<Image> {
  readonly image: Image;
  /** Extra read-only layers, lowest first, each checked by the backend. */
  readonly layers: readonly string[];
  readonly limits: SandboxLimits;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly label?: string;
  /** The main shell starts with its first command (`SandboxSpec.lazyShell`). */
  readonly lazyShell?: boolean;
  /**
   * The upper layer of an open sandbox of the same spec (its processes stopped) that the new
   * sandbox's writable layer starts as a copy of (`Sandbox.fork`); backends that can copy one.
   */
  readonly seed?: string;
  /** For the sandbox to call once it is closed: the provider forgets it. */
  readonly onClose: () => void;
}

/** A sandbox as its provider keeps it: closable at once from an exit handler. */
export interface OwnedSandbox extends Sandbox {
  closeSync(): void;
}

/**
 * What the bwrap and docker providers share: the checks of a spec (network, working directory,
 * layers, image), its defaults (the backend's default image among them), and the set of open sandboxes.
 */
export abstract class BaseProvider<S extends OwnedSandbox, Image> implements SandboxProvider {
  abstract readonly id: string;
  abstract readonly defaultImage: string;
  readonly #sandboxes = new Set<S>();

  /** The parsed image name, or a one-line SandboxError saying what this backend takes. */
  protected abstract imageRef(image: string): Image;
  /** Opens a sandbox of a checked spec. */
  protected abstract open(spec: OpenSpec<Image>): Promise<S>;
  abstract check(): Promise<ProviderCheck>;
  abstract close(): Promise<void>;

  /** libfaketime's path inside a parsed image, or null (see `SandboxProvider.clockLibrary`). */
  protected abstract clockLibraryOf(image: Image): string | null;

  clockLibrary(image: string): string | null {
    return this.clockLibraryOf(this.imageRef(image));
  }

  /** Throws a SandboxError when a layer path cannot be used; any absolute path by default. */
  protected checkLayer(path: string): void {
    if (!isAbsolute(path)) {
      throw new SandboxError('SANDBOX_INVALID_SPEC', `layer path must be absolute: ${JSON.stringify(path)}`);
    }
  }

  checkImage(image: string): void {
    this.imageRef(image);
  }

  /** Both backends run a Debian image from the one image cache (docker imports its tarball). */
  imageBuilt(image: string): boolean {
    const ref = parseImageRef(image);
    if (ref?.kind !== 'debian') return true;
    try {
      return debianImageStatus(ref.profile).built;
    } catch {
      return false; // no such profile: nothing to build it from
    }
  }

  async create(spec: SandboxSpec = {}): Promise<Sandbox> {
    if (spec.network !== undefined && spec.network !== 'none') {
      throw new SandboxError(
        'SANDBOX_INVALID_SPEC',
        `network "${spec.network}" is not supported: sandboxes have no network`,
      );
    }
    const cwd = spec.cwd ?? '/';
    if (!isAbsolute(cwd))
      throw new SandboxError('SANDBOX_INVALID_SPEC', `cwd must be an absolute path: ${cwd}`);
    const image = this.imageRef(spec.image ?? this.defaultImage);
    const library = spec.deterministic ? this.clockLibraryOf(image) : null;
    // A pinned clock comes with the wrappers of the programs that hang under it (lowest layer).
    const layers = [...(library !== null ? [clocklessLayer()] : []), ...(spec.layers ?? [])];
    for (const layer of layers) this.checkLayer(layer);
    return this.openTracked({
      image,
      layers,
      limits: { ...DEFAULT_LIMITS, ...spec.limits },
      env: spec.deterministic
        ? { ...deterministicEnv(spec.deterministic, library), ...spec.env }
        : (spec.env ?? {}),
      cwd,
      timeoutMs: spec.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxOutputBytes: spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      ...(spec.label ? { label: spec.label } : {}),
      ...(spec.lazyShell ? { lazyShell: true } : {}),
    });
  }

  /**
   * Opens a sandbox of a checked spec and keeps it among the open ones until it is closed: what
   * `create` does once the spec is checked, and how a backend opens the copies of a sandbox.
   */
  protected async openTracked(spec: Omit<OpenSpec<Image>, 'onClose'>): Promise<S> {
    let created: S | undefined;
    const sandbox = await this.open({
      ...spec,
      onClose: () => {
        if (created) this.#sandboxes.delete(created);
      },
    });
    created = sandbox;
    this.#sandboxes.add(sandbox);
    return sandbox;
  }

  /** Number of open sandboxes. */
  get size(): number {
    return this.#sandboxes.size;
  }

  /** Closes every open sandbox (the start of a backend's `close`). */
  protected async closeSandboxes(): Promise<void> {
    await Promise.all([...this.#sandboxes].map((sandbox) => sandbox.close()));
  }

  /** Kills every open sandbox at once (a backend's exit handler). */
  protected closeSandboxesSync(): void {
    for (const sandbox of this.#sandboxes) sandbox.closeSync();
  }
}
