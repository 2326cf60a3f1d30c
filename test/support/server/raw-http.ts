import { request } from 'node:http';

/** What the server answered to one raw request. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

/** One request written exactly as given: the body is sent byte for byte, nothing is added but Host and Content-Length. */
export interface RawRequest {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as is; `undefined` sends no body at all. */
  readonly body?: string | Buffer;
  /** Sends the body with chunked transfer encoding (no Content-Length), 16 KiB a chunk. */
  readonly chunked?: boolean;
  /** Guards against a hang only (generous: the machine is shared). */
  readonly timeoutMs?: number;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Sends one HTTP/1.1 request with node:http to `baseUrl` and reads the whole reply. */
export function rawHttp(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const url = new URL(req.path, baseUrl);
  const body = req.body === undefined ? undefined : Buffer.from(req.body);
  const headers: Record<string, string> = { ...req.headers };
  if (req.chunked) headers['transfer-encoding'] = 'chunked';
  else if (
    body !== undefined &&
    !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')
  ) {
    headers['content-length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: req.method ?? 'GET', headers, agent: false, timeout: req.timeoutMs ?? 60_000 },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text, json: parse(text) });
        });
      },
    );
    outgoing.on('timeout', () =>
      outgoing.destroy(new Error(`${req.method ?? 'GET'} ${req.path}: no reply in time`)),
    );
    outgoing.on('error', reject);
    if (body !== undefined && req.chunked) {
      for (let at = 0; at < body.length; at += 16_384) outgoing.write(body.subarray(at, at + 16_384));
    } else if (body !== undefined) {
      outgoing.write(body);
    }
    outgoing.end();
  });
}

/** A JSON request: `body` is serialised with JSON.stringify and sent as application/json. */
export function jsonHttp(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Readonly<Record<string, string>> = {},
): Promise<RawResponse> {
  return rawHttp(baseUrl, {
    method,
    path,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
