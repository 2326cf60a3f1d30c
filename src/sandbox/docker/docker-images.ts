import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { SandboxError } from '../../core/errors.js';
import { HOST_PYTHON_FLAGS, hostHelperEnv, hostPython } from '../host-python.js';
import { builtDebianImage } from '../images/debian-image.js';
import { programSource } from '../program-source.js';
import { containerSpec, LABEL, startContainer } from './docker-container.js';
import type { DockerImageRef } from './docker-image-ref.js';
import { dockerFailure, SupervisedExec } from './supervised-exec.js';

/** Repository of the images this provider imports or builds. */
const REPOSITORY = 'intercode';

async function imageExists(docker: Docker, name: string): Promise<string | null> {
  try {
    return (await docker.getImage(name).inspect()).Id;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null;
    throw dockerFailure(error, `cannot inspect image ${name}`);
  }
}

const importing = new Map<string, Promise<string>>();

/**
 * The Docker image of a sandbox image: `debian` / `debian:<profile>` is the project's Debian root
 * (never built here), imported once as `intercode/<profile>:<key>`; `docker:<name>` is an image
 * already in the daemon, used as it is. Returns the image id.
 */
export async function resolveDockerImage(docker: Docker, image: DockerImageRef): Promise<string> {
  if (image.kind === 'docker') {
    const { name } = image;
    const id = await imageExists(docker, name);
    if (!id) {
      throw new SandboxError(
        'SANDBOX_INVALID_SPEC',
        `docker image "${name}" is not in the daemon: docker pull ${name} (or docker import a root file system)`,
      );
    }
    return id;
  }
  // As on bwrap, a sandbox never builds an image (a minute or more): `intercode image build` does.
  const built = builtDebianImage(image.profile);
  const tag = `${REPOSITORY}/${built.profile}:${built.key}`;
  let pending = importing.get(tag);
  if (!pending) {
    pending = (async () => {
      const existing = await imageExists(docker, tag);
      if (existing) return existing;
      try {
        const stream = (await (docker.importImage(createReadStream(built.tarball), {
          repo: `${REPOSITORY}/${built.profile}`,
          tag: built.key,
        } as never) as unknown)) as NodeJS.ReadableStream;
        await followProgress(docker, stream);
      } catch (error) {
        throw dockerFailure(error, `cannot import ${built.tarball} as ${tag}`);
      }
      const id = await imageExists(docker, tag);
      if (!id) throw new SandboxError('SANDBOX_START_FAILED', `docker import did not create ${tag}`);
      return id;
    })().finally(() => importing.delete(tag));
    importing.set(tag, pending);
  }
  return pending;
}

function followProgress(docker: Docker, stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(stream, (error: Error | null, output: Array<{ error?: string }>) => {
      const failed = output?.find((item) => item.error);
      if (error) reject(error);
      else if (failed) reject(new Error(failed.error));
      else resolve();
    });
  });
}

/** What an overlay layer directory holds: whiteouts, opaque folders, and everything else. */
interface LayerContents {
  readonly whiteouts: string[];
  readonly opaque: string[];
  readonly entries: string[];
}

/** The program that lists a layer directory's whiteouts, opaque folders and entries (`layer-scan.py`). */
const layerScanSource = programSource(new URL('./layer-scan.py', import.meta.url));

function scanLayer(layer: string): LayerContents {
  const result = spawnSync(hostPython(), [...HOST_PYTHON_FLAGS, '-c', layerScanSource(), layer], {
    env: hostHelperEnv(),
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (result.status !== 0) {
    throw new SandboxError('SANDBOX_IO', `cannot read layer ${layer}: ${result.stderr.trim()}`);
  }
  return JSON.parse(result.stdout) as LayerContents;
}

const layering = new Map<string, Promise<string>>();

/**
 * An image with `layers` (overlay layer directories, lowest first) applied on `base`: built once
 * with a builder container (deletions, then the layer's files through the archive API, then a
 * commit) and kept as `intercode/layers:<key>`. Returns the image id.
 */
export function layeredImage(
  docker: Docker,
  base: string,
  layers: readonly string[],
  owner: string,
): Promise<string> {
  if (layers.length === 0) return Promise.resolve(base);
  const key = createHash('sha256')
    .update(`layers-v1\n${base}\n`)
    .update(layers.map((layer) => `${layer}\t${statSync(layer).mtimeMs}`).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const tag = `${REPOSITORY}/layers:${key}`;
  let pending = layering.get(tag);
  if (!pending) {
    pending = (async () => {
      const existing = await imageExists(docker, tag);
      if (existing) return existing;
      const builder = await startContainer(
        docker,
        containerSpec(
          {
            image: base,
            limits: {
              memoryBytes: 2 * 1024 ** 3,
              pids: 1024,
              cpus: 0,
              diskBytes: 0,
              fileSizeBytes: 16 * 1024 ** 3,
              openFiles: 1024,
            },
            env: {},
            cwd: '/',
            labels: { [LABEL.owner]: owner, [LABEL.role]: 'builder' },
            diskQuota: false,
          },
          { readonlyUsr: false },
        ),
      );
      try {
        for (const layer of layers) await applyLayer(builder.container, layer);
        const committed = (await (builder.container.commit({
          repo: `${REPOSITORY}/layers`,
          tag: key,
          pause: true,
          comment: `intercode layers: ${layers.join(', ')}`,
        } as never) as unknown)) as { Id?: string };
        return committed.Id ?? ((await imageExists(docker, tag)) as string);
      } catch (error) {
        throw dockerFailure(error, `cannot build the layered image ${tag}`);
      } finally {
        builder.lifeline.destroy();
        await builder.container.remove({ force: true }).catch(() => {});
      }
    })().finally(() => layering.delete(tag));
    layering.set(tag, pending);
  }
  return pending;
}

async function applyLayer(container: Docker.Container, layer: string): Promise<void> {
  const contents = scanLayer(layer);
  const removals = [...contents.whiteouts, ...contents.opaque.map((dir) => `${dir}/*`)];
  if (removals.length > 0) {
    // Opaque folders lose what the image had in them; whiteouts delete their path.
    const script =
      'while IFS= read -r -d "" p; do case "$p" in */\\*) d=$(dirname -- "$p"); find "$d" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +;; *) rm -rf -- "$p";; esac; done';
    const exec = await SupervisedExec.start(container, {
      command: ['bash', '--norc', '--noprofile', '-c', script],
      cwd: '/',
      env: {},
      onOutput: () => {},
    });
    exec.go();
    exec.write(Buffer.from(removals.map((path) => `${path}\0`).join('')));
    exec.endInput();
    const code = await exec.exited;
    if (code !== 0) throw new SandboxError('SANDBOX_IO', `cannot apply the deletions of layer ${layer}`);
  }
  if (contents.entries.length === 0) return;
  const tar = spawn(
    'tar',
    ['-C', layer, '--numeric-owner', '--no-recursion', '--null', '-T', '-', '-cf', '-'],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  tar.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  tar.stdin.end(contents.entries.map((entry) => `${entry}\0`).join(''));
  const done = new Promise<number>((resolve) => tar.on('close', (code) => resolve(code ?? 1)));
  try {
    await container.putArchive(tar.stdout as unknown as Duplex, { path: '/' });
  } catch (error) {
    tar.kill();
    throw dockerFailure(error, `cannot copy layer ${layer} into the image`);
  }
  if ((await done) !== 0)
    throw new SandboxError('SANDBOX_IO', `tar of layer ${layer} failed: ${stderr.trim()}`);
}
