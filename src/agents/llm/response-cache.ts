import type { ModelClient, ModelRequest, ModelResponse } from './model-client.js';
import { responseCacheKey } from './response-cache-key.js';
import { ResponseCacheStore } from './response-cache-store.js';

/** What a response cache did so far (for the run's log and the tests). */
export interface ResponseCacheStats {
  /** Calls answered from disk (or from an identical call in flight): no request was sent. */
  hits: number;
  /** Calls passed to the model. */
  misses: number;
  /** Entries found unreadable, truncated or invalid (each was ignored, then replaced). */
  corrupt: number;
  /** Answers stored. */
  writes: number;
  /** Answers that could not be stored (the call itself succeeded; the next run asks again). */
  writeErrors: number;
}

/** A model client behind a response cache. */
export interface CachedModelClient extends ModelClient {
  readonly stats: Readonly<ResponseCacheStats>;
  /** The folder of the cache; `undefined` when the model is never cached (the replay model). */
  readonly cacheDir: string | undefined;
}

export interface ResponseCacheOptions {
  /**
   * Goes into every key: the endpoint's base URL, so two servers that serve different weights
   * under one model name do not share answers.
   */
  readonly namespace?: string;
}

/** Providers whose answers are never cached: the replay model answers per task from a file. */
const NEVER_CACHED = new Set(['replay']);

/**
 * `client` behind a response cache in `dir` (`--cache DIR`): a request identical to one already
 * answered (same model, messages, tools and parameters: see `responseCacheKey`) is answered from
 * disk without a call, so re-runs and resumed runs cost nothing and give the same answers.
 *
 * - A cached answer comes back with `cached: true`, `latencyMs: 0` and no retries; its `usage` is
 *   the original call's (kept for the record; `PriceTable.responseCost` charges it 0).
 * - Only successful answers are stored: a call that throws, or ends with finish reason `error`,
 *   leaves the cache as it was.
 * - An unreadable, truncated or invalid entry is treated as a miss and replaced; a failed write
 *   loses the entry, never the answer.
 * - Identical requests in flight at once in this process make one call; workers in other
 *   processes may each make it (the entry they write is whole either way).
 * - The `replay` provider is never cached: its answer depends on the task and turn, which are not
 *   part of the key.
 *
 * Throws a one-line `UsageError` when `dir` cannot be created or written. Design notes:
 * docs/agents/cost-and-cache.md.
 */
export function withResponseCache(
  client: ModelClient,
  dir: string,
  options: ResponseCacheOptions = {},
): CachedModelClient {
  const stats: ResponseCacheStats = { hits: 0, misses: 0, corrupt: 0, writes: 0, writeErrors: 0 };
  const base = {
    id: client.id,
    provider: client.provider,
    model: client.model,
    stats,
    ...(client.check ? { check: (signal?: AbortSignal) => client.check!(signal) } : {}),
    ...(client.close ? { close: () => client.close!() } : {}),
  };
  if (NEVER_CACHED.has(client.provider)) {
    return {
      ...base,
      cacheDir: undefined,
      complete: (request, signal) => client.complete(request, signal),
    };
  }
  const store = new ResponseCacheStore(dir);
  /** The lookup (and, on a miss, the call) of each key in flight, with where its answer came from. */
  const inFlight = new Map<
    string,
    Promise<{ readonly response: ModelResponse; readonly fromDisk: boolean }>
  >();

  const fromCache = (response: ModelResponse): ModelResponse => {
    stats.hits += 1;
    return { ...response, latencyMs: 0, retries: [], cached: true };
  };

  const lookUpOrAsk = async (key: string, request: ModelRequest, signal?: AbortSignal) => {
    const found = await store.read(key);
    if (found.kind === 'hit') return { response: found.response, fromDisk: true };
    if (found.kind === 'corrupt') stats.corrupt += 1;
    stats.misses += 1;
    const response = await client.complete(request, signal);
    if (response.finishReason !== 'error') {
      try {
        await store.write(key, client.id, request.context, response);
        stats.writes += 1;
      } catch {
        stats.writeErrors += 1;
      }
    }
    return { response, fromDisk: false };
  };

  const complete = async (request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> => {
    signal?.throwIfAborted();
    const key = responseCacheKey(client.id, request, options.namespace);
    const pending = inFlight.get(key);
    if (pending) {
      const shared = await pending.then(
        ({ response }) => response,
        () => undefined,
      );
      signal?.throwIfAborted();
      if (shared && shared.finishReason !== 'error') return fromCache(shared);
      // The first caller's call failed: this caller makes its own.
    }
    // Registered before the first await, so an identical request that comes meanwhile waits for it.
    const work = lookUpOrAsk(key, request, signal);
    inFlight.set(key, work);
    try {
      const { response, fromDisk } = await work;
      return fromDisk ? fromCache(response) : response;
    } finally {
      if (inFlight.get(key) === work) inFlight.delete(key);
    }
  };

  return { ...base, cacheDir: dir, complete };
}
