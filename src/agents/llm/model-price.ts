import type { TokenUsage } from './model-client.js';

/**
 * What a model's tokens cost, in US dollars per million tokens. Reasoning tokens are output tokens
 * and cost the output rate. Design notes: docs/agents/cost-and-cache.md.
 */
export interface ModelPrice {
  /** Input tokens that were neither read from nor written to the provider's prompt cache. */
  readonly input: number;
  /** Input tokens read from the provider's prompt cache. */
  readonly cachedInput: number;
  /** Input tokens written to the provider's prompt cache. */
  readonly cacheWrite: number;
  /** Output tokens, reasoning included. */
  readonly output: number;
}

/** A bundled price: the rates and where they were read, so a reader can check them. */
export interface PriceFact extends ModelPrice {
  /** Where the rates were published (the provider's price list). */
  readonly source: string;
  /** When they were read from it (`YYYY-MM`). */
  readonly asOf: string;
}

const PER_MILLION = 1_000_000;

/**
 * The cost of `usage` at `price`, in US dollars. `usage.input` holds the cache reads and writes
 * (as the model client counts them), so only what is left is charged at the full input rate; a
 * provider that reports more cached tokens than input tokens is charged nothing at the input rate
 * rather than a negative amount.
 */
export function priceUsage(price: ModelPrice, usage: TokenUsage): number {
  const uncached = Math.max(0, usage.input - usage.cachedInput - usage.cacheWrite);
  return (
    (uncached * price.input +
      usage.cachedInput * price.cachedInput +
      usage.cacheWrite * price.cacheWrite +
      usage.output * price.output) /
    PER_MILLION
  );
}
