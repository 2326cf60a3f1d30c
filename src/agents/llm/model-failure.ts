/**
 * One failed attempt of a model call, described without the provider library's types: the provider
 * files classify their library's errors into this, and the retry policy decides from it.
 */
export interface ModelFailure {
  /**
   * `transient`: worth another attempt (429, 408, 5xx, a dropped or refused connection, a timeout);
   * `rejected`: the request itself is refused (400, 401, 403, 404, 422, …), another attempt gets the
   * same answer; `bad-response`: an answer that is not the API's JSON (retried, it may be a glitch).
   */
  readonly kind: 'transient' | 'rejected' | 'bad-response';
  /** Short and stable, for logs and the episode record: `429`, `500`, `timeout`, `connection reset`. */
  readonly reason: string;
  /** One line: what the endpoint said. */
  readonly message: string;
  readonly status?: number;
  /** How long the endpoint asked to wait (`Retry-After`, `retry-after-ms`), in ms. */
  readonly retryAfterMs?: number;
}

/**
 * How long a response's headers ask the client to wait: `retry-after-ms` (milliseconds), else
 * `retry-after` in seconds or as an HTTP date (measured from `nowMs`). `undefined` when neither is
 * there or readable; never negative.
 */
export function retryAfterMs(
  headers: Readonly<Record<string, string>> | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  if (headers === undefined) return undefined;
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value.trim()]));
  const ms = Number.parseFloat(lower.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  const after = lower.get('retry-after');
  if (after === undefined || after === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Math.ceil(Number.parseFloat(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
