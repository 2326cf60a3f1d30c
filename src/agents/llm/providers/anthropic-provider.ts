import { createAnthropic } from '@ai-sdk/anthropic';
import type { ModelClient } from '../model-client.js';
import { AiSdkModelClient } from './ai-sdk-client.js';
import type { ProviderSettings } from './provider-settings.js';

/** The public Anthropic endpoint, used when neither an option nor `ANTHROPIC_BASE_URL` names another. */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com/v1';

/** The API version header the SDK sends too. */
const ANTHROPIC_VERSION = '2023-06-01';

/**
 * `max_tokens` when a request sets none: the messages API requires one, and the SDK's own default for
 * an unknown model is far beyond what a non-streaming call should ask for.
 */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/** Each `tool_use` block's input as JSON text, by call id (the API sends it parsed). */
function anthropicToolArguments(body: unknown): ReadonlyMap<string, string> {
  const found = new Map<string, string>();
  const content = (body as { content?: unknown } | undefined)?.content;
  if (!Array.isArray(content)) return found;
  for (const block of content as { type?: unknown; id?: unknown; input?: unknown }[]) {
    if (block.type === 'tool_use' && typeof block.id === 'string')
      found.set(block.id, JSON.stringify(block.input ?? {}));
  }
  return found;
}

/**
 * A client of the Anthropic messages API. Prompt caching is on by default: the message marked
 * `cacheBreakpoint` (the end of the system prompt and demonstrations) gets `cache_control`
 * ephemeral. Provider options under the `anthropic` key pass through (`thinking`, …).
 */
export function createAnthropicClient(settings: ProviderSettings): ModelClient {
  // An empty key is sent as such to a custom endpoint that needs none (the SDK would otherwise read
  // the process environment itself).
  const apiKey = settings.apiKey ?? '';
  const provider = createAnthropic({ baseURL: settings.baseUrl, apiKey });
  return new AiSdkModelClient({
    spec: settings.spec,
    model: provider.messages(settings.spec.model),
    endpoint: {
      baseUrl: settings.baseUrl,
      headers: { 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION },
      baseUrlVariable: 'ANTHROPIC_BASE_URL',
      keyVariable: 'ANTHROPIC_API_KEY',
    },
    policy: settings.policy,
    timeoutMs: settings.timeoutMs,
    cacheBreakpoints: settings.promptCaching,
    defaultMaxTokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
    rawToolArguments: anthropicToolArguments,
    ...(settings.onRetry !== undefined ? { onRetry: settings.onRetry } : {}),
  });
}
