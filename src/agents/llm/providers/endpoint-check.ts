import { IntercodeError, ModelError } from '../../../core/errors.js';
import { classifySdkError } from './sdk-failure.js';

/** Where a provider's endpoint is and how to ask it for its models. */
export interface EndpointInfo {
  /** The API's base URL (`…/v1`), without a trailing slash. */
  readonly baseUrl: string;
  /** Headers of a model-list request (authentication, API version). */
  readonly headers: Readonly<Record<string, string>>;
  /** The environment variables a user sets to fix the URL and the key, for messages. */
  readonly baseUrlVariable: string;
  readonly keyVariable: string;
}

export interface EndpointCheck {
  readonly label: string;
  readonly model: string;
  readonly endpoint: EndpointInfo;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  /** A 1-token model request (with retries), for endpoints whose model list cannot answer. */
  readonly probe: () => Promise<void>;
}

/** The longest wait for the model list: a live server answers it at once. */
const LIST_TIMEOUT_MS = 30_000;

function errorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message =
      typeof parsed.error === 'object' ? parsed.error?.message : (parsed.error ?? parsed.message);
    if (typeof message === 'string') return message.replace(/\s+/g, ' ').trim();
  } catch {}
  return body.replace(/\s+/g, ' ').trim().slice(0, 200);
}

function causeText(error: unknown): string {
  let text = error instanceof Error ? error.message : String(error);
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    text = e.message;
  }
  return text;
}

/** The model ids the endpoint lists, or `undefined` when it has no usable model list. */
async function listModels(check: EndpointCheck): Promise<string[] | undefined> {
  const { endpoint, label } = check;
  const url = `${endpoint.baseUrl}/models`;
  const timeoutMs = Math.min(check.timeoutMs, LIST_TIMEOUT_MS);
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { ...endpoint.headers },
      signal: check.signal === undefined ? timeout : AbortSignal.any([check.signal, timeout]),
    });
  } catch (error) {
    if (check.signal?.aborted === true) throw check.signal.reason;
    const why = timeout.aborted ? `no answer within ${timeoutMs / 1000} s` : causeText(error);
    throw new ModelError(
      'MODEL_UNREACHABLE',
      `${label}: cannot reach ${endpoint.baseUrl} (${why}); is the server running, and is ${endpoint.baseUrlVariable} right?`,
      { cause: error },
    );
  }
  const body = await response.text();
  if (response.status === 401 || response.status === 403) {
    throw new ModelError(
      'MODEL_REJECTED',
      `${label}: ${endpoint.baseUrl} refused the API key (${response.status}: ${errorText(body)}); check ${endpoint.keyVariable}`,
    );
  }
  if (!response.ok) return undefined;
  try {
    const parsed = JSON.parse(body) as { data?: unknown };
    if (!Array.isArray(parsed.data)) return undefined;
    return parsed.data.flatMap((entry: unknown) => {
      const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : undefined;
      return typeof id === 'string' ? [id] : [];
    });
  } catch {
    return undefined;
  }
}

/**
 * One cheap check before any episode: the model list (`GET …/models`) shows the endpoint is up, the
 * key is accepted and the model is there. When the list cannot tell (no such endpoint, or a server
 * like llama.cpp that lists one name and answers to any), a 1-token request decides. Failures are
 * one line each: `MODEL_UNREACHABLE` (nothing answers), `MODEL_REJECTED` (the key, or a model the
 * endpoint does not know).
 */
export async function checkEndpoint(check: EndpointCheck): Promise<void> {
  const ids = await listModels(check);
  if (ids?.includes(check.model) === true) return;
  try {
    await check.probe();
  } catch (error) {
    if (!IntercodeError.isInstance(error) || error.code !== 'MODEL_REJECTED') throw error;
    const status = classifySdkError(error.cause)?.status;
    const { label, endpoint, model } = check;
    const said = classifySdkError(error.cause)?.message ?? error.message;
    if (status === 401 || status === 403) {
      throw new ModelError(
        'MODEL_REJECTED',
        `${label}: ${endpoint.baseUrl} refused the API key (${said}); check ${endpoint.keyVariable}`,
        { cause: error },
      );
    }
    if (status === 404) {
      throw new ModelError(
        'MODEL_REJECTED',
        `${label}: the endpoint ${endpoint.baseUrl} does not know model ${JSON.stringify(model)} (${said})`,
        { cause: error },
      );
    }
    throw error;
  }
}
