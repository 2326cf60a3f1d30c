import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { anthropicWire } from './anthropic-wire.js';
import type { LlmApi, LlmScript, RecordedLlmRequest, ScriptStep } from './llm-script.js';
import { openAiWire, type WireUsage } from './openai-wire.js';

export type {
  LlmApi,
  LlmScript,
  RecordedLlmRequest,
  ScriptStep,
  ScriptToolCall,
  ScriptUsage,
} from './llm-script.js';

/** What the scripted server accepts besides its script. */
export interface ScriptedLlmServerOptions {
  /**
   * The model names the server knows: the models endpoint lists them, and a request for another
   * gets the API's 404. Default: every name is accepted and the list is empty.
   */
  readonly models?: readonly string[];
  /** A required API key (`Authorization: Bearer` for OpenAI, `x-api-key` for Anthropic); else 401. */
  readonly apiKey?: string;
  /** `false`: `GET /v1/models` answers 404, as some OpenAI-compatible servers do. Default `true`. */
  readonly modelsEndpoint?: boolean;
}

const JSON_TYPE = { 'content-type': 'application/json' };

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function headerRecord(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

const quarter = (chars: number): number => Math.ceil(chars / 4);

/** The usage of an answer: the script's counts, or counts estimated from the characters. */
function resolveUsage(step: ScriptStep, body: unknown): WireUsage {
  const given = step.usage ?? {};
  const promptChars =
    JSON.stringify(field(body, 'messages') ?? []).length + JSON.stringify(field(body, 'system') ?? '').length;
  const reasoning = given.reasoning ?? (step.reasoning === undefined ? 0 : quarter(step.reasoning.length));
  const toolChars = (step.toolCalls ?? []).reduce(
    (sum, call) => sum + call.name.length + JSON.stringify(call.arguments).length,
    0,
  );
  return {
    input: given.input ?? quarter(promptChars),
    output: given.output ?? quarter((step.text ?? '').length + toolChars) + reasoning,
    cachedInput: given.cachedInput ?? 0,
    cacheWrite: given.cacheWrite ?? 0,
    reasoning,
  };
}

/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions API
 * (`POST /v1/chat/completions`) and the Anthropic messages API (`POST /v1/messages`), plus both
 * APIs' `GET /v1/models`, non-streaming, and answers model requests from a script. It records and
 * counts every request, so tests can check what a client sent and how often (retries, caching).
 * Point an OpenAI-compatible or Anthropic client at `url`.
 */
export class ScriptedLlmServer {
  readonly #server: Server;
  readonly #script: LlmScript;
  readonly #options: ScriptedLlmServerOptions;
  readonly #requests: RecordedLlmRequest[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  #modelRequests = 0;
  /** The base URL of both APIs (`http://127.0.0.1:PORT/v1`). */
  readonly url: string;

  private constructor(server: Server, url: string, script: LlmScript, options: ScriptedLlmServerOptions) {
    this.#server = server;
    this.url = url;
    this.#script = script;
    this.#options = options;
  }

  /** Starts a server on a free port of 127.0.0.1. */
  static async start(script: LlmScript, options: ScriptedLlmServerOptions = {}): Promise<ScriptedLlmServer> {
    let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
    const server = createServer((req, res) => handler?.(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string')
      throw new Error('the scripted LLM server got no TCP port');
    const instance = new ScriptedLlmServer(server, `http://127.0.0.1:${address.port}/v1`, script, options);
    handler = (req, res) => {
      instance.#handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, JSON_TYPE);
        res.end(JSON.stringify(openAiWire.error(500, `scripted server failure: ${String(error)}`)));
      });
    };
    return instance;
  }

  /** Every request received so far, in order of arrival. */
  get requests(): readonly RecordedLlmRequest[] {
    return [...this.#requests];
  }

  /** How many requests arrived (model requests and model-list requests). */
  get requestCount(): number {
    return this.#requests.length;
  }

  /** How many model requests (chat completions or messages) arrived, rejected ones included. */
  get modelRequestCount(): number {
    return this.#requests.filter((r) => r.method === 'POST').length;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const body = parseJson(text);
    const headers = headerRecord(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';
    const api: LlmApi =
      path === '/v1/messages' ||
      (path === '/v1/models' && ('anthropic-version' in headers || 'x-api-key' in headers))
        ? 'anthropic'
        : 'openai';
    const model = typeof field(body, 'model') === 'string' ? (field(body, 'model') as string) : undefined;
    const recorded: RecordedLlmRequest = {
      index: this.#requests.length,
      api,
      method,
      path,
      headers,
      body,
      model,
    };
    this.#requests.push(recorded);

    const error = (status: number, message: string, code?: string): void => {
      const payload =
        api === 'anthropic' ? anthropicWire.error(status, message) : openAiWire.error(status, message, code);
      res.writeHead(status, JSON_TYPE).end(JSON.stringify(payload));
    };
    const isModels = method === 'GET' && path === '/v1/models';
    const isModelRequest = method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/messages');
    if (!isModels && !isModelRequest) return error(404, `no route ${method} ${path}`);
    if (!this.#authorised(api, headers)) {
      return error(
        401,
        'invalid x-api-key or bearer token: the scripted server refused it',
        'invalid_api_key',
      );
    }
    const known = this.#options.models;
    if (isModels) {
      if (this.#options.modelsEndpoint === false) return error(404, `no route ${method} ${path}`);
      const list = api === 'anthropic' ? anthropicWire.models(known ?? []) : openAiWire.models(known ?? []);
      res.writeHead(200, JSON_TYPE).end(JSON.stringify(list));
      return;
    }
    if (model === undefined) return error(400, 'model: field required');
    if (known !== undefined && !known.includes(model)) {
      const message =
        api === 'anthropic'
          ? `model: ${model}`
          : `The model \`${model}\` does not exist or you do not have access to it.`;
      return error(404, message, 'model_not_found');
    }
    const step = this.#nextStep(recorded);
    if (step === undefined)
      return error(400, `the scripted server has no step for model request ${this.#modelRequests}`);
    if (step.delayMs !== undefined && step.delayMs > 0) {
      const open = await this.#wait(step.delayMs, res);
      if (!open) return;
    }
    if (step.closeConnection === true) {
      req.socket.destroy();
      return;
    }
    const extra = { ...JSON_TYPE, ...step.headers };
    if (step.rawBody !== undefined) {
      res.writeHead(step.status ?? 200, extra).end(step.rawBody);
      return;
    }
    const status = step.status ?? 200;
    if (status >= 400) {
      const message = step.errorMessage ?? `scripted failure with status ${status}`;
      const payload =
        api === 'anthropic' ? anthropicWire.error(status, message) : openAiWire.error(status, message);
      res.writeHead(status, extra).end(JSON.stringify(payload));
      return;
    }
    const usage = resolveUsage(step, body);
    const serial = this.#modelRequests;
    const payload =
      api === 'anthropic'
        ? anthropicWire.message(step, model, usage, serial)
        : openAiWire.completion(step, model, usage, serial);
    res.writeHead(status, extra).end(JSON.stringify(payload));
  }

  #authorised(api: LlmApi, headers: Readonly<Record<string, string>>): boolean {
    const key = this.#options.apiKey;
    if (key === undefined) return true;
    if (api === 'anthropic' && headers['x-api-key'] === key) return true;
    return headers.authorization === `Bearer ${key}`;
  }

  #nextStep(request: RecordedLlmRequest): ScriptStep | undefined {
    const n = this.#modelRequests;
    this.#modelRequests += 1;
    return typeof this.#script === 'function' ? this.#script(request) : this.#script[n];
  }

  /** Waits `ms`; resolves `false` when the client went away (or the server closed) meanwhile. */
  #wait(ms: number, res: ServerResponse): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        res.off('close', onClose);
        resolve(!res.destroyed);
      }, ms);
      const onClose = (): void => {
        clearTimeout(timer);
        this.#timers.delete(timer);
        resolve(false);
      };
      this.#timers.add(timer);
      res.once('close', onClose);
    });
  }

  /** Stops the server: drops open connections and pending delayed answers. */
  close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}
