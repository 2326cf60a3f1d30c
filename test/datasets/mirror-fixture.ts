import {
  copyFileSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (where package.json is). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The local mirror of the upstream data: INTERCODE_DATA_MIRROR, or ../shared/datasets/intercode. */
export const MIRROR =
  process.env.INTERCODE_DATA_MIRROR ?? join(PROJECT_ROOT, '..', 'shared', 'datasets', 'intercode');

/** A fresh temporary directory, removed by `cleanup`. */
export function tempDir(prefix: string, made: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), `intercode-${prefix}-`));
  made.push(dir);
  return dir;
}

export function cleanup(made: string[]): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Copies some upstream paths of the mirror into a new mirror folder. */
export function copyMirrorSubset(target: string, paths: readonly string[]): string {
  for (const path of paths) {
    mkdirSync(dirname(join(target, path)), { recursive: true });
    copyFileSync(join(MIRROR, path), join(target, path));
  }
  return target;
}

/** Every regular file under a folder (relative paths), empty when it does not exist. */
export function filesUnder(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir, { recursive: true }) as string[];
  } catch {
    return [];
  }
  return entries.filter((entry) => statSync(join(dir, entry)).isFile()).sort();
}

/** Serves a folder over HTTP on 127.0.0.1 (404 for what is not there); records the request paths. */
export async function serveFolder(
  root: string,
): Promise<{ url: string; requests: string[]; server: Server }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    requests.push(path);
    const file = join(root, path);
    let ok = false;
    try {
      ok = file.startsWith(root) && statSync(file).isFile();
    } catch {
      ok = false;
    }
    if (!ok) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { 'content-length': statSync(file).size });
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, server };
}
