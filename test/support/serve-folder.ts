import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A folder served over HTTP: its address, the paths requested so far, and the server. */
export interface ServedFolder {
  readonly url: string;
  readonly requests: string[];
  readonly server: Server;
}

/** Serves a folder over HTTP on 127.0.0.1 (404 for what is not there); records the request paths. */
export async function serveFolder(root: string): Promise<ServedFolder> {
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

/** Closes a server (resolves also when it was closed already). */
export function closeServer(server: Server): Promise<void> {
  return new Promise((done) => {
    if (!server.listening) done();
    else server.close(() => done());
  });
}
