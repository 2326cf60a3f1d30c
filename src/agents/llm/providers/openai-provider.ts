import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ModelClient } from '../model-client.js';
import { AiSdkModelClient } from './ai-sdk-client.js';
import type { ProviderSettings } from './provider-settings.js';

/** The public OpenAI endpoint, used when neither an option nor `OPENAI_BASE_URL` names another. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** The tool calls' argument text exactly as the model wrote it (`function.arguments`), by call id. */
function openAiToolArguments(body: unknown): ReadonlyMap<string, string> {
  const found = new Map<string, string>();
  const choices = (body as { choices?: unknown } | undefined)?.choices;
  const message = Array.isArray(choices)
    ? (choices[0] as { message?: unknown } | undefined)?.message
    : undefined;
  const calls = (message as { tool_calls?: unknown } | undefined)?.tool_calls;
  if (!Array.isArray(calls)) return found;
  for (const call of calls as { id?: unknown; function?: { arguments?: unknown } }[]) {
    if (typeof call.id === 'string' && typeof call.function?.arguments === 'string') {
      found.set(call.id, call.function.arguments);
    }
  }
  return found;
}

/**
 * A client of any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp,
 * OpenRouter, …). Provider options under the `openai` key pass through: `reasoningEffort`, and any
 * other key as a raw field of the request body.
 */
export function createOpenAiClient(settings: ProviderSettings): ModelClient {
  const provider = createOpenAICompatible({
    name: 'openai',
    baseURL: settings.baseUrl,
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
  });
  return new AiSdkModelClient({
    spec: settings.spec,
    model: provider.chatModel(settings.spec.model),
    endpoint: {
      baseUrl: settings.baseUrl,
      headers: settings.apiKey !== undefined ? { authorization: `Bearer ${settings.apiKey}` } : {},
      baseUrlVariable: 'OPENAI_BASE_URL',
      keyVariable: 'OPENAI_API_KEY',
    },
    policy: settings.policy,
    timeoutMs: settings.timeoutMs,
    cacheBreakpoints: false,
    rawToolArguments: openAiToolArguments,
    ...(settings.onRetry !== undefined ? { onRetry: settings.onRetry } : {}),
  });
}
