import Docker from 'dockerode';

/** The default Docker socket when `DOCKER_HOST` is not set. */
export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';

/** Where the daemon is: `DOCKER_HOST` (unix://, tcp://, http://) or the default socket. */
export function dockerEndpoint(): string {
  return process.env.DOCKER_HOST || `unix://${DEFAULT_DOCKER_SOCKET}`;
}

/** A client of the Docker Engine API at `dockerEndpoint()`. */
export function dockerClient(): Docker {
  const endpoint = dockerEndpoint();
  if (endpoint.startsWith('unix://')) return new Docker({ socketPath: endpoint.slice('unix://'.length) });
  if (endpoint.startsWith('/')) return new Docker({ socketPath: endpoint });
  const url = new URL(endpoint.replace(/^tcp:/, 'http:'));
  return new Docker({
    protocol: url.protocol === 'https:' ? 'https' : 'http',
    host: url.hostname,
    port: Number(url.port || (url.protocol === 'https:' ? 2376 : 2375)),
  });
}
