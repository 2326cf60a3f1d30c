import { Registry } from '../core/registry.js';
import { BwrapProvider } from './bwrap/bwrap-provider.js';
import { DockerBackend } from './docker/docker-backend.js';
import type { SandboxProvider } from './sandbox.js';

/** Creates a provider; each call gives an independent provider with its own sandboxes. */
export type SandboxProviderFactory = () => SandboxProvider;

/** The sandbox backends intercode ships, registered explicitly (never on import). */
export function createProviderRegistry(): Registry<SandboxProviderFactory> {
  return new Registry<SandboxProviderFactory>('sandbox backend')
    .register('bwrap', () => new BwrapProvider(), 'bubblewrap on a per-sandbox overlay (Linux; the default)')
    .register('docker', () => new DockerBackend(), 'Docker containers over the Engine API (DOCKER_HOST)');
}
