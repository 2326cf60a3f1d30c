import { ModelError, UsageError } from '../../core/errors.js';
import type { ModelClient } from './model-client.js';
import type { ModelSpec } from './model-spec.js';
import { ANTHROPIC_DEFAULT_BASE_URL, createAnthropicClient } from './providers/anthropic-provider.js';
import { createOpenAiClient, OPENAI_DEFAULT_BASE_URL } from './providers/openai-provider.js';
import { createReplayModel } from './replay/replay-model.js';
import { type RetryEvent, type RetryOptions, RetryPolicy } from './retry-policy.js';

/** How to reach a model: all optional, the environment and defaults fill the rest. */
export interface ModelClientOptions {
  /** The API's base URL (`…/v1`); default `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`, else the public API. */
  readonly baseUrl?: string;
  /** Default `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`. Optional for a custom base URL. */
  readonly apiKey?: string;
  /** Per attempt of a model call (default 120,000 ms); a timeout is retried. */
  readonly timeoutMs?: number;
  readonly retry?: RetryOptions;
  /** Where the variables are read (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** Told about each retry before its wait (the progress line shows it). */
  readonly onRetry?: (event: RetryEvent) => void;
  /** Anthropic prompt caching on the message marked `cacheBreakpoint` (default `true`). */
  readonly promptCaching?: boolean;
}

/** The default time limit of one attempt of a model call. */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;

interface ProviderEnvironment {
  readonly baseUrlVariable: string;
  readonly keyVariable: string;
  readonly defaultBaseUrl: string;
}

const ENVIRONMENT: Readonly<Record<'openai' | 'anthropic', ProviderEnvironment>> = {
  openai: {
    baseUrlVariable: 'OPENAI_BASE_URL',
    keyVariable: 'OPENAI_API_KEY',
    defaultBaseUrl: OPENAI_DEFAULT_BASE_URL,
  },
  anthropic: {
    baseUrlVariable: 'ANTHROPIC_BASE_URL',
    keyVariable: 'ANTHROPIC_API_KEY',
    defaultBaseUrl: ANTHROPIC_DEFAULT_BASE_URL,
  },
};

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === '' ? undefined : value.trim();

function checkedBaseUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(
      `${source} ${JSON.stringify(value)}: not a URL; expected e.g. http://127.0.0.1:8000/v1`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source} ${JSON.stringify(value)}: expected an http:// or https:// URL`);
  }
  return value.replace(/\/+$/, '');
}

/**
 * Makes the client of a parsed `--model`. Checks what can be checked without a request (the base
 * URL, the key, the timeout) and throws one line naming the input: `MODEL_NO_API_KEY` when the
 * public API is addressed without a key. A custom base URL needs no key (local servers such as
 * vLLM, Ollama and llama.cpp take none); one is sent when given. `replay` is the recorded-trajectory
 * model of `./replay/replay-model.ts`. Nothing is sent before `check()` or `complete()`.
 */
export function createModelClient(spec: ModelSpec, options: ModelClientOptions = {}): ModelClient {
  if (spec.provider === 'replay') return createReplayModel(spec.model);
  const env = options.env ?? process.env;
  const names = ENVIRONMENT[spec.provider];
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new UsageError(`model timeout ${timeoutMs} ms: expected a positive number of milliseconds`);
  }
  const givenUrl = nonEmpty(options.baseUrl);
  const envUrl = nonEmpty(env[names.baseUrlVariable]);
  const baseUrl =
    givenUrl !== undefined
      ? checkedBaseUrl(givenUrl, '--base-url')
      : envUrl !== undefined
        ? checkedBaseUrl(envUrl, names.baseUrlVariable)
        : names.defaultBaseUrl;
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env[names.keyVariable]);
  if (apiKey === undefined && baseUrl === names.defaultBaseUrl) {
    throw new ModelError(
      'MODEL_NO_API_KEY',
      `--model ${spec.provider}:${spec.model}: no API key; set ${names.keyVariable} (or set ${names.baseUrlVariable} to a server that needs none)`,
    );
  }
  const settings = {
    spec,
    baseUrl,
    apiKey,
    timeoutMs,
    policy: new RetryPolicy(options.retry),
    promptCaching: options.promptCaching ?? true,
    ...(options.onRetry !== undefined ? { onRetry: options.onRetry } : {}),
  };
  return spec.provider === 'anthropic' ? createAnthropicClient(settings) : createOpenAiClient(settings);
}
