import type { PriceFact } from './model-price.js';

/*
 * The bundled price list: US dollars per million tokens, keyed by bare model name (a key matches
 * the model under any provider prefix, with or without a date suffix: see price-key.ts). Prices
 * are facts that change: each entry says where it was read and when, and `--prices FILE`
 * replaces any of them. Rules and caveats: docs/agents/cost-and-cache.md.
 *
 * OpenAI charges nothing extra to write its prompt cache (so `cacheWrite` is the input rate);
 * Anthropic charges 1.25 times the input rate for a five-minute cache write and a tenth of it for
 * a cache read. Models without prompt caching list their input rate as the cached rate: they
 * report no cache reads, so it is never used.
 */

const OPENAI = 'OpenAI API price list (standard tier)';
const ANTHROPIC = 'Anthropic API price list (5-minute cache writes, prompts up to 200k tokens)';

function openai(input: number, cachedInput: number, output: number, asOf = '2025-08'): PriceFact {
  return { input, cachedInput, cacheWrite: input, output, source: OPENAI, asOf };
}

function anthropic(input: number, output: number, asOf = '2025-08'): PriceFact {
  return {
    input,
    cachedInput: round(input * 0.1),
    cacheWrite: round(input * 1.25),
    output,
    source: ANTHROPIC,
    asOf,
  };
}

/** Rounds away the binary noise of the multiplications above (0.30000000000000004). */
function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** The bundled prices, by key (`PriceTable` matches model ids against these keys). */
export const DEFAULT_PRICES: Readonly<Record<string, PriceFact>> = {
  // OpenAI
  'gpt-5': openai(1.25, 0.125, 10),
  'gpt-5-mini': openai(0.25, 0.025, 2),
  'gpt-5-nano': openai(0.05, 0.005, 0.4),
  'gpt-4.1': openai(2, 0.5, 8),
  'gpt-4.1-mini': openai(0.4, 0.1, 1.6),
  'gpt-4.1-nano': openai(0.1, 0.025, 0.4),
  'gpt-4o': openai(2.5, 1.25, 10),
  // The first gpt-4o snapshot kept its launch price and has no cache discount.
  'gpt-4o-2024-05-13': openai(5, 5, 15),
  'gpt-4o-mini': openai(0.15, 0.075, 0.6),
  o1: openai(15, 7.5, 60),
  'o1-mini': openai(1.1, 0.55, 4.4),
  o3: openai(2, 0.5, 8),
  'o3-mini': openai(1.1, 0.55, 4.4),
  'o4-mini': openai(1.1, 0.275, 4.4),
  'gpt-4-turbo': openai(10, 10, 30),
  // The models of the InterCode paper's runs (2023) and their snapshots.
  'gpt-4': openai(30, 30, 60),
  'gpt-4-0613': openai(30, 30, 60),
  'gpt-4-0314': openai(30, 30, 60),
  'gpt-4-32k': openai(60, 60, 120),
  'gpt-3.5-turbo': openai(0.5, 0.5, 1.5),
  'gpt-3.5-turbo-0125': openai(0.5, 0.5, 1.5),
  'gpt-3.5-turbo-1106': openai(1, 1, 2),
  'gpt-3.5-turbo-0613': openai(1.5, 1.5, 2),
  // Anthropic
  'claude-opus-4-5': anthropic(5, 25, '2025-11'),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-3-opus': anthropic(15, 75),
  'claude-sonnet-4-5': anthropic(3, 15, '2025-11'),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-3-5-sonnet': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5, '2025-11'),
  'claude-3-5-haiku': anthropic(0.8, 4),
  'claude-3-haiku': anthropic(0.25, 1.25),
  // The replay model answers from a recorded file: no request is sent, nothing is charged.
  'replay:*': {
    input: 0,
    cachedInput: 0,
    cacheWrite: 0,
    output: 0,
    source: 'intercode: the replay model sends no request',
    asOf: '2026-12',
  },
};
