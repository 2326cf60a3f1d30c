/**
 * The project's own view of a language model: what the strategies send and what they get back.
 * Provider libraries (the AI SDK) stay behind `ModelClient` implementations, so none of their types
 * reach the rest of the project (design notes: docs/agents/llm.md).
 */

/** A tool the model may call (native tool calling): its JSON Schema of arguments. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** A tool call the model made: the harness runs it, never the provider library. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments as sent; `undefined` when they were not valid JSON (`argumentsText` keeps them). */
  readonly arguments: Readonly<Record<string, unknown>> | undefined;
  /** The arguments' text as the model wrote it. */
  readonly argumentsText: string;
}

export type ChatMessage =
  | {
      readonly role: 'system' | 'user';
      readonly content: string;
      /**
       * The end of the stable prefix of the conversation (system prompt, demonstrations): a
       * provider with prompt caching caches everything up to and including this message.
       */
      readonly cacheBreakpoint?: boolean;
    }
  | {
      readonly role: 'assistant';
      readonly content: string;
      readonly toolCalls?: readonly ToolCall[];
    }
  | {
      readonly role: 'tool';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly content: string;
    };

/** Where a request comes from: not sent to a provider; the replay model and the logs use it. */
export interface RequestContext {
  readonly taskId: string;
  /** Turn of the episode, from 0. */
  readonly turn: number;
  /** `single`, `try-again`, `react`, `plan-solve`, `tools`. */
  readonly strategy: string;
  /** The environment's name (`bash`, `sql`, `python`, `ctf`). */
  readonly env: string;
  /** What this call is for within the turn, when a strategy makes several (`plan`, `step`, `action`). */
  readonly purpose?: string;
}

export interface ModelRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly ToolSpec[];
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly stop?: readonly string[];
  /** Passed through to the provider (reasoning effort, thinking budget, …), by provider name. */
  readonly providerOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly context: RequestContext;
}

/** Tokens of one call. `input` includes cached tokens (cache reads and writes), as ATIF counts them. */
export interface TokenUsage {
  readonly input: number;
  readonly output: number;
  /** Input tokens read from the provider's prompt cache (a part of `input`). */
  readonly cachedInput: number;
  /** Input tokens written to the provider's prompt cache (a part of `input`). */
  readonly cacheWrite: number;
  /** Reasoning tokens (a part of `output`). */
  readonly reasoning: number;
}

export const NO_USAGE: TokenUsage = { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, reasoning: 0 };

/** Adds two usages field by field. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cachedInput: a.cachedInput + b.cachedInput,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    reasoning: a.reasoning + b.reasoning,
  };
}

/** One retry the client made before its answer: why, and how long it waited. */
export interface RetryRecord {
  readonly attempt: number;
  /** `429`, `500`, `timeout`, `connection reset`, … */
  readonly reason: string;
  readonly waitMs: number;
}

export interface ModelResponse {
  readonly text: string;
  /** Reasoning text, when the provider returns it. */
  readonly reasoning?: string;
  readonly toolCalls: readonly ToolCall[];
  /** `stop`, `length`, `tool-calls`, `content-filter`, `error`, `other`. */
  readonly finishReason: string;
  readonly usage: TokenUsage;
  /** Wall time of the call including retries. */
  readonly latencyMs: number;
  readonly retries: readonly RetryRecord[];
  /** The answer came from the response cache (`--cache`): no request was sent. */
  readonly cached?: boolean;
  /** The model id the provider reported. */
  readonly modelId?: string;
  /** Provider warnings (unsupported settings and the like). */
  readonly warnings?: readonly string[];
}

/** A language model the strategies can call. */
export interface ModelClient {
  /** `provider:model` as given to `--model`. */
  readonly id: string;
  readonly provider: string;
  readonly model: string;
  complete(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse>;
  /** Checks before any episode that the model can be reached and accepts the model name. */
  check?(signal?: AbortSignal): Promise<void>;
  close?(): Promise<void>;
}
