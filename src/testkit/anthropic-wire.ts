import type { ScriptStep } from './llm-script.js';
import type { WireUsage } from './openai-wire.js';

const STOP: Readonly<Record<string, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  'content-filter': 'refusal',
};

const ERROR_TYPE: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  413: 'request_too_large',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** Anthropic's tool input is always an object: a string is parsed when it can be, else sent as is. */
function toolInput(args: Readonly<Record<string, unknown>> | string): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/** The Anthropic messages wire format: answers, errors and the model list. */
export const anthropicWire = {
  /** A `message` object for one scripted step. */
  message(step: ScriptStep, model: string, usage: WireUsage, serial: number): unknown {
    const content: unknown[] = [];
    if (step.reasoning !== undefined) {
      content.push({ type: 'thinking', thinking: step.reasoning, signature: `sig-${serial}` });
    }
    if (step.text !== undefined || (step.toolCalls ?? []).length === 0) {
      content.push({ type: 'text', text: step.text ?? '' });
    }
    for (const [i, call] of (step.toolCalls ?? []).entries()) {
      content.push({
        type: 'tool_use',
        id: call.id ?? `toolu_${serial}_${i}`,
        name: call.name,
        input: toolInput(call.arguments),
      });
    }
    const reason = step.finishReason ?? ((step.toolCalls ?? []).length > 0 ? 'tool-calls' : 'stop');
    return {
      id: `msg_${serial}`,
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: STOP[reason] ?? reason,
      stop_sequence: null,
      usage: {
        input_tokens: Math.max(0, usage.input - usage.cachedInput - usage.cacheWrite),
        output_tokens: usage.output,
        cache_read_input_tokens: usage.cachedInput,
        cache_creation_input_tokens: usage.cacheWrite,
      },
    };
  },

  /** The error object Anthropic answers with a failing status. */
  error(status: number, message: string): unknown {
    const type = ERROR_TYPE[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
    return { type: 'error', error: { type, message } };
  },

  /** The `GET /v1/models` list. */
  models(names: readonly string[]): unknown {
    return {
      data: names.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' })),
      has_more: false,
      first_id: names[0] ?? null,
      last_id: names.at(-1) ?? null,
    };
  },
};
