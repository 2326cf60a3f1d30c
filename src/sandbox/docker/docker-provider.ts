import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isAbsolute } from 'node:path';
import type Docker from 'dockerode';
import { SandboxError } from '../../core/errors.js';
import { trackForExit } from '../../core/host/exit-cleanup.js';
import { currentOwner } from '../../core/host/owner.js';
import {
  DEFAULT_LIMITS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  type ProviderCheck,
  type Sandbox,
  type SandboxProvider,
  type SandboxSpec,
} from '../sandbox.js';
import { checkDocker, diskQuotaSupported } from './docker-check.js';
import { reapDeadOwners } from './docker-clean.js';
import { dockerClient } from './docker-client.js';
import { containerSpec, LABEL } from './docker-container.js';
import { DOCKER_DEFAULT_IMAGE, dockerImageRef } from './docker-image-ref.js';
import { layeredImage, resolveDockerImage } from './docker-images.js';
import { DockerSandbox } from './docker-sandbox.js';
import { LocalLayerDiff } from './local-layer-diff.js';
import { dockerFailure } from './supervised-exec.js';

/**
 * Sandboxes as Docker containers over the Engine API: no network, no capabilities, memory, process
 * and CPU limits from the daemon, a persistent shell over an attached exec, reset by a new container.
 */
export class DockerProvider implements SandboxProvider {
  readonly id = 'docker';
  readonly #docker: Docker;
  readonly #owner = currentOwner();
  readonly #sandboxes = new Set<DockerSandbox>();
  /** Never-started containers per image: what diff() compares against. */
  readonly #pristine = new Map<string, Promise<Docker.Container>>();
  readonly #localDiff = new LocalLayerDiff(this.#owner);
  #ready: Promise<{ diskQuota: boolean }> | undefined;
  #untrack: (() => void) | undefined;

  constructor(options: { docker?: Docker } = {}) {
    this.#docker = options.docker ?? dockerClient();
  }

  /** The labels every container of this provider carries. */
  get labels(): Record<string, string> {
    return { [LABEL.owner]: this.#owner, [LABEL.host]: hostname() };
  }

  #start(): Promise<{ diskQuota: boolean }> {
    this.#ready ??= (async () => {
      try {
        await this.#docker.ping();
      } catch (error) {
        throw new SandboxError(
          'SANDBOX_UNAVAILABLE',
          `the Docker daemon is not reachable (${(error as Error).message}): start dockerd, or set DOCKER_HOST`,
          { cause: error },
        );
      }
      await reapDeadOwners(this.#docker);
      this.#untrack = trackForExit({ closeSync: () => this.#closeSync() });
      return { diskQuota: await diskQuotaSupported(this.#docker) };
    })().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  #pristineOf(image: string): Promise<Docker.Container> {
    let pending = this.#pristine.get(image);
    if (!pending) {
      pending = this.#docker
        .createContainer({
          ...containerSpec({
            image,
            limits: DEFAULT_LIMITS,
            env: {},
            cwd: '/',
            labels: { ...this.labels, [LABEL.role]: 'pristine' },
            diskQuota: false,
          }),
          HostConfig: { NetworkMode: 'none' },
        })
        .catch((error: unknown) => {
          this.#pristine.delete(image);
          throw dockerFailure(error, 'cannot create the reference container');
        });
      this.#pristine.set(image, pending);
    }
    return pending;
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
    for (const layer of spec.layers ?? []) {
      if (!isAbsolute(layer)) {
        throw new SandboxError(
          'SANDBOX_INVALID_SPEC',
          `layer path must be absolute: ${JSON.stringify(layer)}`,
        );
      }
    }
    const ref = dockerImageRef(spec.image ?? DOCKER_DEFAULT_IMAGE);
    const { diskQuota } = await this.#start();
    const base = await resolveDockerImage(this.#docker, ref);
    const image = await layeredImage(this.#docker, base, spec.layers ?? [], this.#owner);
    const limits = { ...DEFAULT_LIMITS, ...spec.limits };
    const id = randomBytes(6).toString('hex');
    let created: DockerSandbox | undefined;
    const sandbox = await DockerSandbox.create(id, {
      docker: this.#docker,
      image,
      limits,
      env: spec.env ?? {},
      cwd,
      timeoutMs: spec.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxOutputBytes: spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      labels: {
        ...this.labels,
        [LABEL.sandbox]: id,
        [LABEL.role]: 'sandbox',
        ...(spec.label ? { [LABEL.label]: spec.label } : {}),
      },
      diskQuota,
      pristine: () => this.#pristineOf(image),
      ...(process.env.INTERCODE_DOCKER_API_DIFF
        ? {}
        : { localDiff: (container) => this.#localDiff.diff(container) }),
      onClose: () => {
        if (created) this.#sandboxes.delete(created);
      },
    });
    created = sandbox;
    this.#sandboxes.add(sandbox);
    return sandbox;
  }

  check(): Promise<ProviderCheck> {
    return checkDocker(this.#docker);
  }

  /** Number of open sandboxes. */
  get size(): number {
    return this.#sandboxes.size;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sandboxes].map((sandbox) => sandbox.close()));
    const pristine = [...this.#pristine.values()];
    this.#pristine.clear();
    await Promise.all(
      pristine.map(async (pending) => {
        const container = await pending.catch(() => undefined);
        await container?.remove({ force: true }).catch(() => {});
      }),
    );
    await this.#localDiff.close();
    this.#untrack?.();
    this.#untrack = undefined;
    this.#ready = undefined;
  }

  #closeSync(): void {
    for (const sandbox of this.#sandboxes) sandbox.closeSync();
    this.#localDiff.killSync();
  }
}
