import { ModelError } from '../../core/errors.js';
import type { RequestContext, RetryRecord } from './model-client.js';
import type { ModelFailure } from './model-failure.js';

/** Bounds of the retry policy. Defaults suit hosted APIs with per-minute rate limits. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 6). */
  readonly maxAttempts?: number;
  /** The most the policy waits between attempts, summed over one call (default 120,000 ms). */
  readonly maxTotalWaitMs?: number;
  /** The wait before the second attempt, without a `Retry-After` (default 2,000 ms). */
  readonly initialDelayMs?: number;
  /** Each wait is this many times the one before (default 2). */
  readonly factor?: number;
  /** The longest single wait of the backoff (default 60,000 ms). */
  readonly maxDelayMs?: number;
  /** Each backoff wait is spread by up to this share either way (default 0.25). */
  readonly jitter?: number;
  /** For tests: a number in [0, 1) (default `Math.random`). */
  readonly random?: () => number;
  /** For tests: waits `ms` or rejects when `signal` aborts (default a timer). */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** For tests: the clock that `Retry-After` dates are read against (default `Date.now`). */
  readonly now?: () => number;
}

/** A retry about to happen: the record the response keeps, and where it comes from. */
export interface RetryEvent extends RetryRecord {
  /** The model request's context (the endpoint check's own probe has `taskId` `endpoint-check`). */
  readonly context: RequestContext;
}

/** What the policy needs to know about one call. */
export interface RetryRun<T> {
  /** One attempt (numbered from 1). */
  readonly attempt: (attempt: number) => Promise<T>;
  /** Turns an attempt's error into a failure; errors it returns `undefined` for are thrown as they are. */
  readonly classify: (error: unknown) => ModelFailure | undefined;
  /** Called before each wait. */
  readonly onRetry?: (record: RetryRecord) => void;
  /** Aborts waits and attempts: the abort reason is thrown, never retried. */
  readonly signal?: AbortSignal;
  /** Names the model in error messages (`openai:gpt-4o`). */
  readonly label: string;
}

/** Waits `ms` unless `signal` aborts first. */
export function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/**
 * Our retry policy around a model call (the provider library's own retries are off): only transient
 * failures are retried, with exponential backoff and jitter, or exactly as long as `Retry-After`
 * asks; attempts and the summed wait are capped, so a dead endpoint fails in bounded time instead of
 * looking like a hang. Rejections fail at once (`MODEL_REJECTED`); exhausted retries end with
 * `MODEL_FAILED`, or `MODEL_BAD_RESPONSE` when the last answer was not the API's JSON.
 */
export class RetryPolicy {
  readonly maxAttempts: number;
  readonly maxTotalWaitMs: number;
  readonly #options: RetryOptions;

  constructor(options: RetryOptions = {}) {
    this.#options = options;
    this.maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 6));
    this.maxTotalWaitMs = Math.max(0, options.maxTotalWaitMs ?? 120_000);
  }

  /** The wait after failed attempt `attempt` (from 1), before any `Retry-After` and the budget. */
  backoffMs(attempt: number): number {
    const initial = this.#options.initialDelayMs ?? 2_000;
    const base = Math.min(
      this.#options.maxDelayMs ?? 60_000,
      initial * (this.#options.factor ?? 2) ** (attempt - 1),
    );
    const jitter = this.#options.jitter ?? 0.25;
    const random = (this.#options.random ?? Math.random)();
    return Math.max(0, Math.round(base * (1 - jitter + 2 * jitter * random)));
  }

  /** Runs the attempts; resolves with the value and the retries made before it. */
  async run<T>(run: RetryRun<T>): Promise<{ value: T; retries: RetryRecord[] }> {
    const retries: RetryRecord[] = [];
    const sleep = this.#options.sleep ?? sleepFor;
    let waitedMs = 0;
    for (let attempt = 1; ; attempt += 1) {
      let failure: ModelFailure | undefined;
      try {
        return { value: await run.attempt(attempt), retries };
      } catch (error) {
        if (run.signal?.aborted === true) throw run.signal.reason;
        failure = run.classify(error);
        if (failure === undefined) throw error;
        if (failure.kind === 'rejected') {
          throw new ModelError(
            'MODEL_REJECTED',
            `${run.label}: the endpoint rejected the request: ${failure.message}`,
            {
              cause: error,
            },
          );
        }
        const waitMs = failure.retryAfterMs ?? this.backoffMs(attempt);
        const stop = this.#stopReason(attempt, waitedMs, waitMs);
        if (stop !== undefined) throw this.#exhausted(run.label, failure, attempt, waitedMs, stop, error);
        const record: RetryRecord = { attempt, reason: failure.reason, waitMs };
        retries.push(record);
        run.onRetry?.(record);
        waitedMs += waitMs;
        await sleep(waitMs, run.signal);
      }
    }
  }

  #stopReason(attempt: number, waitedMs: number, waitMs: number): string | undefined {
    if (attempt >= this.maxAttempts) return `after ${attempt} attempts`;
    if (waitedMs + waitMs > this.maxTotalWaitMs) {
      return `after ${attempt} attempts: waiting ${seconds(waitMs)} more would pass the retry budget of ${seconds(this.maxTotalWaitMs)}`;
    }
    return undefined;
  }

  #exhausted(
    label: string,
    failure: ModelFailure,
    attempt: number,
    waitedMs: number,
    stop: string,
    cause: unknown,
  ) {
    const code = failure.kind === 'bad-response' ? 'MODEL_BAD_RESPONSE' : 'MODEL_FAILED';
    const waited = attempt > 1 ? `, ${seconds(waitedMs)} waited` : '';
    return new ModelError(
      code,
      `${label}: gave up ${stop}${waited}; last failure ${failure.reason}: ${failure.message}`,
      {
        cause,
      },
    );
  }
}
