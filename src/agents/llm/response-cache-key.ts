import { createHash } from 'node:crypto';
import type { ModelRequest } from './model-client.js';

/** The version of the key's recipe: a change of what goes into the key bumps it (old entries miss). */
const KEY_VERSION = 1;

/**
 * JSON with object keys sorted at every depth and `undefined` members left out, so equal values
 * always give the same text whatever order their keys were built in.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sortKeys(item)));
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) sorted[key] = sortKeys(member);
  }
  return sorted;
}

/**
 * The response-cache key of `request` to `modelId`: the SHA-256 (hex) of the canonical JSON of
 * what decides the answer: the model id, the messages, the tools, temperature, maxTokens, stop
 * and the provider options, and `namespace` when given (an endpoint's base URL, so two servers
 * that serve different weights under one name do not share answers).
 *
 * Left out on purpose: `context` (task, turn, strategy: where the request comes from, not what
 * it asks; identical prompts from two tasks may share one answer) and each message's
 * `cacheBreakpoint` (it tells the provider what to cache on its side, which changes the bill but
 * not the answer). Reasons: docs/agents/cost-and-cache.md.
 */
export function responseCacheKey(modelId: string, request: ModelRequest, namespace?: string): string {
  const decisive = {
    v: KEY_VERSION,
    model: modelId,
    namespace,
    messages: request.messages.map((message) => {
      if (message.role === 'system' || message.role === 'user') {
        return { role: message.role, content: message.content };
      }
      return message;
    }),
    tools: request.tools,
    temperature: request.temperature,
    maxTokens: request.maxTokens,
    stop: request.stop,
    providerOptions: request.providerOptions,
  };
  return createHash('sha256').update(canonicalJson(decisive)).digest('hex');
}
