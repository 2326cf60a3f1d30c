import type { ScriptStep } from './llm-script.js';

/** Token counts resolved from a script step and the request. */
export interface WireUsage {
  readonly input: number;
  readonly output: number;
  readonly cachedInput: number;
  readonly cacheWrite: number;
  readonly reasoning: number;
}

const FINISH: Readonly<Record<string, string>> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
};

const ERROR_TYPE: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  408: 'timeout',
  422: 'invalid_request_error',
  429: 'rate_limit_exceeded',
};

/** The OpenAI chat-completions wire format: answers, errors and the model list. */
export const openAiWire = {
  /** A `chat.completion` object for one scripted step. */
  completion(step: ScriptStep, model: string, usage: WireUsage, serial: number): unknown {
    const toolCalls = (step.toolCalls ?? []).map((call, i) => ({
      id: call.id ?? `call_${serial}_${i}`,
      type: 'function',
      function: {
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      },
    }));
    const reason = step.finishReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop');
    return {
      id: `chatcmpl-${serial}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: step.text ?? (toolCalls.length > 0 ? null : ''),
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            ...(step.reasoning !== undefined ? { reasoning_content: step.reasoning } : {}),
          },
          finish_reason: FINISH[reason] ?? reason,
        },
      ],
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.output,
        prompt_tokens_details: { cached_tokens: usage.cachedInput },
        completion_tokens_details: { reasoning_tokens: usage.reasoning },
      },
    };
  },

  /** The error object OpenAI answers with a failing status. */
  error(status: number, message: string, code: string | null = null): unknown {
    const type = ERROR_TYPE[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
    return { error: { message, type, param: null, code } };
  },

  /** The `GET /v1/models` list. */
  models(names: readonly string[]): unknown {
    return {
      object: 'list',
      data: names.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'scripted' })),
    };
  },
};
