import type { ModelSpec } from '../model-spec.js';
import type { RetryEvent, RetryPolicy } from '../retry-policy.js';

/** Everything a provider's client needs, resolved from options and the environment. */
export interface ProviderSettings {
  readonly spec: ModelSpec;
  /** Without a trailing slash. */
  readonly baseUrl: string;
  /** `undefined`: no key is sent (a local server that needs none). */
  readonly apiKey: string | undefined;
  readonly timeoutMs: number;
  readonly policy: RetryPolicy;
  readonly promptCaching: boolean;
  readonly onRetry?: (event: RetryEvent) => void;
}
