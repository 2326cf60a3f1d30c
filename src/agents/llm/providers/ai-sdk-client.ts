import { generateText, type LanguageModel } from 'ai';
import { IntercodeError, ModelError } from '../../../core/errors.js';
import type { ModelClient, ModelRequest, ModelResponse, TokenUsage, ToolCall } from '../model-client.js';
import type { ModelSpec } from '../model-spec.js';
import type { RetryEvent, RetryPolicy } from '../retry-policy.js';
import { checkEndpoint, type EndpointInfo } from './endpoint-check.js';
import { AttemptTimeout, classifySdkError } from './sdk-failure.js';
import { toSdkMessages, toSdkTools } from './sdk-prompt.js';

// The AI SDK prints warnings to the console unless told not to; they go into `ModelResponse.warnings`.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** The SDK's provider-options type (JSON values by provider name; ours are the same shape, typed looser). */
type SdkProviderOptions = NonNullable<Parameters<typeof generateText>[0]['providerOptions']>;

/** What differs between the providers behind `AiSdkModelClient`. */
export interface AiSdkClientConfig {
  readonly spec: ModelSpec;
  readonly model: LanguageModel;
  readonly endpoint: EndpointInfo;
  readonly policy: RetryPolicy;
  /** Per attempt. */
  readonly timeoutMs: number;
  /** Mark `cacheBreakpoint` messages for the provider's prompt cache. */
  readonly cacheBreakpoints: boolean;
  /** `max_tokens` when the request sets none (Anthropic requires one). */
  readonly defaultMaxTokens?: number;
  /** The tool calls' argument text as the model wrote it, by call id, from the raw response body. */
  readonly rawToolArguments?: (body: unknown) => ReadonlyMap<string, string>;
  readonly onRetry?: (event: RetryEvent) => void;
}

function parseArguments(text: string): Readonly<Record<string, unknown>> | undefined {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

type SdkWarning = NonNullable<Awaited<ReturnType<typeof generateText>>['warnings']>[number];

/** One line per SDK warning: `unsupported setting topK`, `compatibility: …`, or the SDK's message. */
function warningText(warning: SdkWarning): string {
  if (warning.type === 'other') return warning.message;
  const what = warning.type === 'unsupported' ? 'unsupported setting' : 'compatibility mode for';
  return `${what} ${warning.feature}${warning.details !== undefined ? `: ${warning.details}` : ''}`;
}

/** A model behind the AI SDK's `generateText`, with our retry policy, timeout and mapping around it. */
export class AiSdkModelClient implements ModelClient {
  readonly id: string;
  readonly provider: string;
  readonly model: string;
  readonly #config: AiSdkClientConfig;

  constructor(config: AiSdkClientConfig) {
    this.#config = config;
    this.provider = config.spec.provider;
    this.model = config.spec.model;
    this.id = `${config.spec.provider}:${config.spec.model}`;
  }

  async complete(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    const started = performance.now();
    const { onRetry } = this.#config;
    try {
      const { value, retries } = await this.#config.policy.run({
        label: this.id,
        signal,
        attempt: () => this.#attempt(request, signal),
        classify: classifySdkError,
        onRetry:
          onRetry === undefined ? undefined : (record) => onRetry({ ...record, context: request.context }),
      });
      return { ...value, latencyMs: performance.now() - started, retries };
    } catch (error) {
      if (IntercodeError.isInstance(error) || signal?.aborted === true) throw error;
      const detail = error instanceof Error ? error.message : String(error);
      throw new ModelError('MODEL_FAILED', `${this.id}: the model call failed: ${detail}`, { cause: error });
    }
  }

  async #attempt(
    request: ModelRequest,
    signal: AbortSignal | undefined,
  ): Promise<Omit<ModelResponse, 'latencyMs' | 'retries'>> {
    const config = this.#config;
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(new AttemptTimeout(config.timeoutMs)), config.timeoutMs);
    const abortSignal = signal === undefined ? timer.signal : AbortSignal.any([signal, timer.signal]);
    try {
      const maxOutputTokens = request.maxTokens ?? config.defaultMaxTokens;
      const result = await generateText({
        model: config.model,
        messages: toSdkMessages(request.messages, config.cacheBreakpoints),
        allowSystemInMessages: true,
        tools: toSdkTools(request.tools),
        maxRetries: 0,
        abortSignal,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
        ...(request.stop !== undefined && request.stop.length > 0
          ? { stopSequences: [...request.stop] }
          : {}),
        ...(request.providerOptions !== undefined
          ? { providerOptions: request.providerOptions as SdkProviderOptions }
          : {}),
      });
      const raw = config.rawToolArguments?.(result.response.body) ?? new Map<string, string>();
      const toolCalls = result.toolCalls.map((call): ToolCall => {
        const input: unknown = call.input;
        const text =
          raw.get(call.toolCallId) ?? (typeof input === 'string' ? input : JSON.stringify(input ?? {}));
        return {
          id: call.toolCallId,
          name: call.toolName,
          arguments: parseArguments(text),
          argumentsText: text,
        };
      });
      const usage = result.usage;
      const tokens: TokenUsage = {
        input: usage.inputTokens ?? 0,
        output: usage.outputTokens ?? 0,
        cachedInput: usage.inputTokenDetails?.cacheReadTokens ?? 0,
        cacheWrite: usage.inputTokenDetails?.cacheWriteTokens ?? 0,
        reasoning: usage.outputTokenDetails?.reasoningTokens ?? 0,
      };
      const warnings = result.warnings?.map(warningText);
      return {
        text: result.text,
        ...(result.reasoningText !== undefined && result.reasoningText !== ''
          ? { reasoning: result.reasoningText }
          : {}),
        toolCalls,
        finishReason: result.finishReason,
        usage: tokens,
        modelId: result.response.modelId,
        ...(warnings !== undefined && warnings.length > 0 ? { warnings } : {}),
      };
    } catch (error) {
      if (timer.signal.aborted && signal?.aborted !== true) throw timer.signal.reason;
      throw error;
    } finally {
      clearTimeout(timeout);
    }
  }

  /** Probes the endpoint before any episode: reachable, key accepted, model known. */
  check(signal?: AbortSignal): Promise<void> {
    return checkEndpoint({
      label: this.id,
      model: this.model,
      endpoint: this.#config.endpoint,
      timeoutMs: this.#config.timeoutMs,
      signal,
      probe: async () => {
        await this.complete(
          {
            messages: [{ role: 'user', content: 'Reply with the word ok.' }],
            maxTokens: 1,
            context: { taskId: 'endpoint-check', turn: 0, strategy: 'check', env: 'none', purpose: 'check' },
          },
          signal,
        );
      },
    });
  }
}
