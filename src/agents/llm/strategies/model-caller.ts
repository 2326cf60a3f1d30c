import type { ModelCallRecord } from '../../../core/run-files/episode-record-schema.js';
import type {
  ChatMessage,
  ModelClient,
  ModelResponse,
  RequestContext,
  TokenUsage,
  ToolSpec,
} from '../model-client.js';
import type { EpisodeLimits } from './episode-limits.js';
import { messageData, type PrefixStore } from './prefix-store.js';

/** Prices model calls (`PriceTable` of `--prices`): `null` for a model without a price. */
export interface CallPricing {
  cost(model: string, usage: TokenUsage): number | null;
}

/**
 * Is told when episodes start and end and the cost of every model call as it is known (`CostBudget`
 * of `--max-cost`; `null`: the model has no price). `key` is the episode's task id.
 */
export interface CostSink {
  start(key: string): void;
  add(costUsd: number | null, key?: string): void;
  finish(key: string): void;
}

/** The sampling settings of every request of a run (`--temperature`, `--max-tokens`, `--provider-option`). */
export interface SamplingSettings {
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly providerOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** What a strategy's model caller needs from the run. */
export interface ModelCallerOptions {
  readonly client: ModelClient;
  readonly sampling?: SamplingSettings;
  readonly prices?: CallPricing;
  readonly budget?: CostSink;
  readonly prefixes?: PrefixStore;
}

/** One model call: the answer and its record for `episodes.jsonl`. */
export interface ModelCall {
  readonly response: ModelResponse;
  readonly record: ModelCallRecord;
}

/** The messages of one request: the run's shared prefix, then what belongs to this episode. */
export interface CallMessages {
  /** System prompt and demonstrations: the same array object for every call of the run. */
  readonly prefix: readonly ChatMessage[];
  readonly rest: readonly ChatMessage[];
  readonly tools?: readonly ToolSpec[];
  readonly stop?: readonly string[];
}

/**
 * Sends a strategy's requests and records each call: messages (the prefix by name), raw output,
 * reasoning, tool calls, tokens, cost, latency, retries. The cost is counted (budget, episode
 * tokens) as soon as the answer arrives, before the strategy parses it: a turn whose output cannot
 * be parsed is still billed. A call answered from the response cache costs nothing.
 */
export class ModelCaller {
  readonly #options: ModelCallerOptions;
  readonly #limits: EpisodeLimits;

  constructor(options: ModelCallerOptions, limits: EpisodeLimits) {
    this.#options = options;
    this.#limits = limits;
  }

  get client(): ModelClient {
    return this.#options.client;
  }

  async call(messages: CallMessages, context: RequestContext, signal?: AbortSignal): Promise<ModelCall> {
    const { client, sampling, prices, budget, prefixes } = this.#options;
    const response = await client.complete(
      {
        messages: [...messages.prefix, ...messages.rest],
        ...(messages.tools ? { tools: messages.tools } : {}),
        ...(messages.stop ? { stop: messages.stop } : {}),
        ...(sampling?.temperature !== undefined ? { temperature: sampling.temperature } : {}),
        ...(sampling?.maxTokens !== undefined ? { maxTokens: sampling.maxTokens } : {}),
        ...(sampling?.providerOptions ? { providerOptions: sampling.providerOptions } : {}),
        context,
      },
      signal,
    );
    const costUsd = response.cached ? 0 : prices ? prices.cost(client.id, response.usage) : null;
    budget?.add(costUsd, context.taskId);
    this.#limits.add(response.usage.input + response.usage.output);
    const named = prefixes !== undefined && messages.prefix.length > 0;
    const record: ModelCallRecord = {
      ...(named ? { prefix: prefixes.name(messages.prefix) } : {}),
      messages: (named ? messages.rest : [...messages.prefix, ...messages.rest]).map(messageData),
      output: response.text,
      ...(response.reasoning ? { reasoning: response.reasoning } : {}),
      ...(response.toolCalls.length > 0
        ? {
            toolCalls: response.toolCalls.map((call) => ({
              id: call.id,
              name: call.name,
              argumentsText: call.argumentsText,
            })),
          }
        : {}),
      finishReason: response.finishReason,
      usage: { ...response.usage },
      costUsd,
      latencyMs: response.latencyMs,
      retries: response.retries.map((retry) => ({ ...retry })),
      ...(response.cached ? { cached: true } : {}),
    };
    return { response, record };
  }
}
