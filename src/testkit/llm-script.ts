/**
 * The script of a `ScriptedLlmServer`: what it answers to each model request, in terms that do not
 * depend on the API (the server writes each API's own wire format).
 */

/** Token counts of a scripted answer, counted the way `TokenUsage` counts them. */
export interface ScriptUsage {
  /** Input tokens, cached ones included (default: a quarter of the request's message characters). */
  readonly input?: number;
  /** Output tokens, reasoning included (default: a quarter of the answer's characters). */
  readonly output?: number;
  /** Input tokens read from the prompt cache (a part of `input`). */
  readonly cachedInput?: number;
  /** Input tokens written to the prompt cache (a part of `input`; Anthropic only). */
  readonly cacheWrite?: number;
  /** Reasoning tokens (a part of `output`; OpenAI only, Anthropic's usage has no such field). */
  readonly reasoning?: number;
}

/** A tool call in a scripted answer. */
export interface ScriptToolCall {
  readonly name: string;
  /** An object, or the raw argument text (a string that is not JSON scripts bad arguments). */
  readonly arguments: Readonly<Record<string, unknown>> | string;
  /** The call's id (default: numbered by the server). */
  readonly id?: string;
}

/** One answer of the server. Every field is optional: `{}` answers an empty text. */
export interface ScriptStep {
  readonly text?: string;
  readonly toolCalls?: readonly ScriptToolCall[];
  /** Reasoning text (OpenAI `reasoning_content`, Anthropic `thinking` block). */
  readonly reasoning?: string;
  readonly usage?: ScriptUsage;
  /** HTTP status; 400 and above answer the API's error shape with `errorMessage`. */
  readonly status?: number;
  readonly errorMessage?: string;
  /** Extra response headers (`retry-after`, `retry-after-ms`, …). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as the body instead of a well-formed answer (malformed JSON and the like). */
  readonly rawBody?: string;
  /** Waits this long before answering (a slow model). */
  readonly delayMs?: number;
  /** Drops the connection without an answer (after `delayMs`, if any). */
  readonly closeConnection?: boolean;
  /**
   * `stop`, `length`, `tool-calls` or `content-filter`, written as each API spells it; any other
   * value is sent verbatim. Default: `tool-calls` when there are tool calls, else `stop`.
   */
  readonly finishReason?: string;
}

/** The API a request was made to. */
export type LlmApi = 'openai' | 'anthropic';

/** A request the server received, as it arrived. */
export interface RecordedLlmRequest {
  /** Order of arrival among all requests, from 0. */
  readonly index: number;
  readonly api: LlmApi;
  readonly method: string;
  readonly path: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body (`undefined` for a GET; the text when it is not JSON). */
  readonly body: unknown;
  /** The model named by the request (`undefined` for the models endpoint). */
  readonly model: string | undefined;
}

/** Answers in order (one step per model request), or a function of the request. */
export type LlmScript = readonly ScriptStep[] | ((request: RecordedLlmRequest) => ScriptStep);
