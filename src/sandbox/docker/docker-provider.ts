import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { SandboxError } from '../../core/errors.js';
import { trackForExit } from '../../core/host/exit-cleanup.js';
import { currentOwner } from '../../core/host/owner.js';
import { BaseProvider, type OpenSpec } from '../base-provider.js';
import { DEFAULT_LIMITS, type ProviderCheck } from '../sandbox.js';
import { checkDocker, diskQuotaSupported } from './docker-check.js';
import { reapDeadOwners } from './docker-clean.js';
import { dockerClient } from './docker-client.js';
import { containerSpec, LABEL } from './docker-container.js';
import {
  DOCKER_DEFAULT_IMAGE,
  type DockerImageRef,
  dockerClockLibrary,
  dockerImageRef,
} from './docker-image-ref.js';
import { layeredImage, resolveDockerImage } from './docker-images.js';
import { DockerSandbox } from './docker-sandbox.js';
import { LocalContainerState } from './local-container-state.js';
import { LocalLayerDiff } from './local-layer-diff.js';
import { dockerFailure } from './supervised-exec.js';

/**
 * Sandboxes as Docker containers over the Engine API: no network, no capabilities, memory, process
 * and CPU limits from the daemon, a persistent shell over an attached exec, reset by a new container.
 */
export class DockerProvider extends BaseProvider<DockerSandbox, DockerImageRef> {
  readonly id = 'docker';
  readonly defaultImage = DOCKER_DEFAULT_IMAGE;
  /** Each sandbox keeps a spare container for its next reset. */
  readonly resetsAhead = true;
  readonly #docker: Docker;
  readonly #owner = currentOwner();
  /** Never-started containers per image: what diff() compares against. */
  readonly #pristine = new Map<string, Promise<Docker.Container>>();
  readonly #localDiff = new LocalLayerDiff();
  /** What a trusted reset checks before it keeps a container (through the same mount helper). */
  readonly #localState = new LocalContainerState(() => this.#localDiff.helper());
  #ready: Promise<{ diskQuota: boolean }> | undefined;
  #untrack: (() => void) | undefined;

  constructor(options: { docker?: Docker } = {}) {
    super();
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

  protected imageRef(image: string): DockerImageRef {
    return dockerImageRef(image);
  }

  protected clockLibraryOf(image: DockerImageRef): string | null {
    return dockerClockLibrary(image);
  }

  protected async open({
    image: ref,
    layers,
    label,
    ...settings
  }: OpenSpec<DockerImageRef>): Promise<DockerSandbox> {
    const { diskQuota } = await this.#start();
    const base = await resolveDockerImage(this.#docker, ref);
    const image = await layeredImage(this.#docker, base, layers, this.#owner);
    const id = randomBytes(6).toString('hex');
    return DockerSandbox.create(id, {
      ...settings,
      docker: this.#docker,
      image,
      labels: {
        ...this.labels,
        [LABEL.sandbox]: id,
        [LABEL.role]: 'sandbox',
        ...(label ? { [LABEL.label]: label } : {}),
      },
      diskQuota,
      pristine: () => this.#pristineOf(image),
      ...(process.env.INTERCODE_DOCKER_API_DIFF
        ? {}
        : { localDiff: (container) => this.#localDiff.diff(container), localState: this.#localState }),
    });
  }

  check(): Promise<ProviderCheck> {
    return checkDocker(this.#docker);
  }

  async close(): Promise<void> {
    await this.closeSandboxes();
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
    this.closeSandboxesSync();
    this.#localDiff.killSync();
  }
}
