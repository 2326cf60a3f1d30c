import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IntercodeError, UsageError } from '../core/errors.js';
import { readRunPrefixes } from '../harness/export/export-atif.js';
import { episodeNeighbours, parseEpisodeQuery, queryEpisodes } from './episode-query.js';
import { RunIndex } from './run-index.js';
import type { RunsResponse } from './viewer-api.js';
import { type ViewerAssets, viewerAssets } from './viewer-assets.js';

export interface ViewerOptions {
  readonly directories: readonly string[];
  /** 0 picks a free port. */
  readonly port: number;
  readonly host: string;
  /** How often the runs' files are checked for new episodes, ms (the page is told over `/api/events`). */
  readonly pollMs?: number;
}

export interface Viewer {
  /** The page's address. */
  readonly url: string;
  readonly runs: readonly RunIndex[];
  close(): Promise<void>;
}

/**
 * What a page may load: its own script and style only, nothing inline, no frames, no forms, no
 * outside address. Whatever a run's texts hold, they are drawn as text (the page never parses them
 * as markup), and this is the second wall should that ever slip.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || host.startsWith('127.');
}

/** The host name of a `Host` header (without its port). */
function hostName(header: string | undefined): string {
  if (header === undefined) return '';
  if (header.startsWith('[')) return header.slice(0, header.indexOf(']') + 1);
  return header.split(':')[0] ?? '';
}

function send(response: ServerResponse, status: number, type: string, body: string | Buffer): void {
  response.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-resource-policy': 'same-origin',
    'cache-control': 'no-store',
  });
  response.end(body);
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  send(response, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

/** The run of a path's id, or a 404 said in JSON. */
function runOf(runs: readonly RunIndex[], id: string | undefined): RunIndex | undefined {
  return /^\d+$/.test(id ?? '') ? runs[Number(id)] : undefined;
}

/**
 * `intercode view`: serves the viewer's page and a read-only JSON API over the given run
 * directories (docs/cli/view.md). Every directory is checked before the server listens; requests
 * other than GET are refused, and on a loopback address a request naming another host (a page of
 * another site reaching it through DNS rebinding) too.
 */
export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  if (options.directories.length === 0)
    throw new UsageError('intercode view needs at least one run directory');
  const runs = options.directories.map((directory, id) => new RunIndex(id, directory));
  const assets = viewerAssets();
  const listeners = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    try {
      handle(request, response);
    } catch (error) {
      const known = error instanceof IntercodeError;
      sendJson(response, known ? 400 : 500, { error: known ? error.message : 'internal error' });
    }
  });

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    if (isLoopback(options.host) && !isLoopback(hostName(request.headers.host))) {
      sendJson(response, 403, { error: 'this viewer answers requests for its loopback address only' });
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      sendJson(response, 405, { error: 'the viewer is read-only' });
      return;
    }
    const url = new URL(request.url ?? '/', 'http://viewer');
    const parts = url.pathname.split('/').filter((part) => part !== '');
    if (parts[0] !== 'api') {
      serveAsset(assets, url.pathname, response);
      return;
    }
    if (parts[1] === 'events' && parts.length === 2) {
      openEvents(response);
      return;
    }
    if (parts[1] !== 'runs') {
      sendJson(response, 404, { error: `no such API path: ${url.pathname}` });
      return;
    }
    if (parts.length === 2) {
      for (const run of runs) run.refresh();
      sendJson(response, 200, { runs: runs.map((run) => run.info()) } satisfies RunsResponse);
      return;
    }
    const run = runOf(runs, parts[2]);
    const known = parts[3] === 'episodes' || (parts[3] === 'neighbours' && parts.length === 5);
    if (run === undefined || !known || parts.length > 5) {
      sendJson(response, 404, { error: `no such run or path: ${url.pathname}` });
      return;
    }
    const query = parseEpisodeQuery(url.searchParams);
    const other = query.versus === undefined ? undefined : runs[query.versus];
    if (query.versus !== undefined && other === undefined) {
      throw new UsageError(`parameter versus names no run: ${query.versus}`);
    }
    if (parts.length === 4) {
      sendJson(response, 200, queryEpisodes(run, query, other));
      return;
    }
    if (parts[3] === 'neighbours') {
      if (!/^\d+$/.test(parts[4] ?? '')) throw new UsageError(`not an episode id: ${parts[4]}`);
      sendJson(response, 200, episodeNeighbours(run, query, Number(parts[4]), other));
      return;
    }
    const record = /^\d+$/.test(parts[4] ?? '') ? run.record(Number(parts[4])) : undefined;
    if (record === undefined) {
      sendJson(response, 404, { error: `run ${run.id} has no episode ${parts[4]}` });
      return;
    }
    const names = new Set(record.turns.flatMap((turn) => turn.llm?.calls.map((call) => call.prefix) ?? []));
    const all = names.size > 0 ? readRunPrefixes(run.directory) : {};
    const prefixes = Object.fromEntries(
      [...names].flatMap((name) => (name && all[name] ? [[name, all[name]]] : [])),
    );
    sendJson(response, 200, { record, prefixes });
  };

  const openEvents = (response: ServerResponse): void => {
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    response.write(`data: ${JSON.stringify(runs.map((run) => run.version))}\n\n`);
    listeners.add(response);
    response.on('close', () => listeners.delete(response));
  };

  // While a page listens, the runs' files are read on from time to time and it is told when one
  // grew (without a listener, `/api/runs` reads them on when asked).
  const poll = setInterval(() => {
    if (listeners.size === 0) return;
    const changed = runs.map((run) => run.refresh()).some(Boolean);
    if (!changed) return;
    const message = `data: ${JSON.stringify(runs.map((run) => run.version))}\n\n`;
    for (const listener of listeners) listener.write(message);
  }, options.pollMs ?? 1_000);
  poll.unref();

  await listen(server, options.port, options.host);
  const { port } = server.address() as AddressInfo;
  const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shown}:${port}/`,
    runs,
    close: async () => {
      clearInterval(poll);
      for (const listener of listeners) listener.end();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === 'EADDRINUSE'
          ? `port ${port} on ${host} is in use: pass another --port (0 picks a free one)`
          : `cannot listen on ${host}:${port} (${error.code ?? error.message})`;
      fail(new UsageError(reason));
    });
    server.listen(port, host, () => done());
  });
}

function serveAsset(assets: ViewerAssets, path: string, response: ServerResponse): void {
  // Every page address (deep links are in the fragment, but a reload of `/` must work) gets the page.
  const asset = assets.get(path === '/' ? '/index.html' : path);
  if (asset === undefined) {
    send(response, 404, 'text/plain; charset=utf-8', 'not found');
    return;
  }
  send(response, 200, asset.type, asset.body);
}
