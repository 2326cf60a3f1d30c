import type { ProviderCheck, Sandbox, SandboxProvider, SandboxSpec } from '../sandbox.js';
import { DOCKER_DEFAULT_IMAGE, dockerClockLibrary, dockerImageRef } from './docker-image-ref.js';
import type { DockerProvider } from './docker-provider.js';

/**
 * The docker backend as the registry creates it: the Docker client library (a fifth of a second
 * to load) is loaded on first use, so commands that never touch docker do not pay for it.
 */
export class DockerBackend implements SandboxProvider {
  readonly id = 'docker';
  readonly defaultImage = DOCKER_DEFAULT_IMAGE;
  /** Each sandbox keeps a spare container for its next reset. */
  readonly resetsAhead = true;
  #provider: Promise<DockerProvider> | undefined;

  #load(): Promise<DockerProvider> {
    this.#provider ??= import('./docker-provider.js').then((module) => new module.DockerProvider());
    return this.#provider;
  }

  /** Checked without loading the Docker client or reaching the daemon. */
  checkImage(image: string): void {
    dockerImageRef(image);
  }

  clockLibrary(image: string): string | null {
    return dockerClockLibrary(dockerImageRef(image));
  }

  async create(spec?: SandboxSpec): Promise<Sandbox> {
    return (await this.#load()).create(spec);
  }

  async check(): Promise<ProviderCheck> {
    return (await this.#load()).check();
  }

  async close(): Promise<void> {
    const provider = this.#provider;
    if (provider) await (await provider).close();
  }
}

/** `intercode doctor --clean`: removes the containers of dead owners (see `cleanDockerSandboxes`). */
export async function cleanDockerSandboxes(options: { images?: boolean } = {}) {
  const module = await import('./docker-clean.js');
  return module.cleanDockerSandboxes(options);
}
