import { DEFAULT_PRICES } from './default-prices.js';
import type { ModelResponse, TokenUsage } from './model-client.js';
import { type ModelPrice, priceUsage } from './model-price.js';
import { readPriceFile } from './price-file.js';
import { priceKeys } from './price-keys.js';

/** A price found for a model: the rates, the key that matched, and whose entry it is. */
export interface PriceMatch {
  readonly price: ModelPrice;
  readonly key: string;
  readonly from: 'user' | 'default';
}

/**
 * Model prices: the bundled list (default-prices.ts) with a user's price file over it. A model id
 * is matched by the keys of `priceKeys` (provider, routed names, date suffixes), most specific
 * first; the user's entries are searched before the bundled ones, so any user entry that matches
 * wins. Rules: docs/agents/cost-and-cache.md.
 */
export class PriceTable {
  private readonly user: ReadonlyMap<string, ModelPrice>;
  private readonly defaults: ReadonlyMap<string, ModelPrice>;

  constructor(user: ReadonlyMap<string, ModelPrice> = new Map(), defaults = bundledPrices()) {
    this.user = user;
    this.defaults = defaults;
  }

  /**
   * The bundled prices, with the entries of `file` (a JSON price file, `--prices FILE`) over them.
   * A bad file throws a one-line `UsageError` naming the file and the field, before any work.
   */
  static load(file?: string): PriceTable {
    return new PriceTable(file === undefined ? new Map() : readPriceFile(file));
  }

  /** The price of `model` (`provider:model` or a bare model name), or `undefined` when it has none. */
  lookup(model: string): PriceMatch | undefined {
    const keys = priceKeys(model);
    for (const [from, prices] of [
      ['user', this.user],
      ['default', this.defaults],
    ] as const) {
      for (const key of keys) {
        const price = prices.get(key);
        if (price) return { price, key, from };
      }
    }
    return undefined;
  }

  /**
   * What `usage` cost on `model`, in US dollars, or `null` when the model has no price (never a
   * throw: an unknown model is a gap in the accounting, not a failure of the run). Cache reads are
   * charged at the cached rate and cache writes at the write rate, never at the full input rate.
   */
  cost(model: string, usage: TokenUsage): number | null {
    const match = this.lookup(model);
    return match ? priceUsage(match.price, usage) : null;
  }

  /**
   * What a model call cost: 0 for an answer from the response cache (no request was sent; its
   * usage is the original call's, kept for the record), else `cost(model, response.usage)`.
   */
  responseCost(model: string, response: Pick<ModelResponse, 'usage' | 'cached'>): number | null {
    if (response.cached) return 0;
    return this.cost(model, response.usage);
  }
}

function bundledPrices(): ReadonlyMap<string, ModelPrice> {
  return new Map(
    Object.entries(DEFAULT_PRICES).map(([key, { input, cachedInput, cacheWrite, output }]) => [
      key,
      { input, cachedInput, cacheWrite, output },
    ]),
  );
}
