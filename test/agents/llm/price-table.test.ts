import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { DEFAULT_PRICES } from '../../../src/agents/llm/default-prices.js';
import type { TokenUsage } from '../../../src/agents/llm/model-client.js';
import { priceKeys } from '../../../src/agents/llm/price-keys.js';
import { PriceTable } from '../../../src/agents/llm/price-table.js';
import { UsageError } from '../../../src/core/errors.js';
import { test } from '../../support/fixtures.js';

const MILLION = 1_000_000;

function usage(fields: Partial<TokenUsage>): TokenUsage {
  return { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, reasoning: 0, ...fields };
}

function priceFile(dir: string, content: unknown): string {
  const file = join(dir, 'prices.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('priceKeys', () => {
  test('tries the provider-qualified names, then the bare ones, then the provider wildcard', () => {
    expect(priceKeys('Anthropic:claude-3-5-sonnet-20241022')).toEqual([
      'anthropic:claude-3-5-sonnet-20241022',
      'anthropic:claude-3-5-sonnet',
      'claude-3-5-sonnet-20241022',
      'claude-3-5-sonnet',
      'anthropic:*',
    ]);
  });

  test('reads routed names, dotted versions and every date suffix form', () => {
    expect(priceKeys('openrouter:anthropic/claude-3.5-sonnet')).toContain('claude-3-5-sonnet');
    expect(priceKeys('openai:gpt-4o-2024-08-06')).toContain('gpt-4o');
    expect(priceKeys('vertex:claude-3-5-haiku@20241022')).toContain('claude-3-5-haiku');
    expect(priceKeys('anthropic:claude-3-7-sonnet-latest')).toContain('claude-3-7-sonnet');
    // A bare model name has no provider keys.
    expect(priceKeys('gpt-4o')).toEqual(['gpt-4o']);
    // Four-digit snapshots keep their suffix (they were priced apart from their family).
    expect(priceKeys('openai:gpt-3.5-turbo-0613')).not.toContain('gpt-3.5-turbo');
  });
});

describe('PriceTable', () => {
  const table = PriceTable.load();

  test('prices a known model at its input and output rates, reasoning as output', () => {
    // gpt-4o: $2.50 in, $10 out per million tokens.
    const cost = table.cost('openai:gpt-4o', usage({ input: 1000, output: 500, reasoning: 200 }));
    expect(cost).toBeCloseTo((1000 * 2.5 + 500 * 10) / MILLION, 12);
  });

  test('matches dated snapshots, routed names and bare names to their family', () => {
    const tokens = usage({ input: MILLION, output: MILLION });
    const sonnet = 3 + 15;
    expect(table.cost('anthropic:claude-3-5-sonnet-20241022', tokens)).toBeCloseTo(sonnet, 9);
    expect(table.cost('openrouter:anthropic/claude-3.5-sonnet', tokens)).toBeCloseTo(sonnet, 9);
    expect(table.cost('claude-sonnet-4-20250514', tokens)).toBeCloseTo(sonnet, 9);
    expect(table.cost('openai:gpt-4.1-2025-04-14', tokens)).toBeCloseTo(2 + 8, 9);
  });

  test('a snapshot with its own entry beats its family', () => {
    const tokens = usage({ input: MILLION, output: MILLION });
    expect(table.cost('openai:gpt-4o-2024-05-13', tokens)).toBeCloseTo(5 + 15, 9);
    expect(table.cost('openai:gpt-3.5-turbo-0613', tokens)).toBeCloseTo(1.5 + 2, 9);
    expect(table.cost('openai:gpt-3.5-turbo', tokens)).toBeCloseTo(0.5 + 1.5, 9);
  });

  test('charges cache reads at the cached rate and cache writes at the write rate', () => {
    // Anthropic counts cache reads and writes inside `input` (as the model client does).
    const tokens = usage({ input: 10_000, cachedInput: 8000, cacheWrite: 1000, output: 100 });
    const cost = table.cost('anthropic:claude-3-5-sonnet-20241022', tokens);
    const expected = (1000 * 3 + 8000 * 0.3 + 1000 * 3.75 + 100 * 15) / MILLION;
    expect(cost).toBeCloseTo(expected, 12);
    // Charging the cache reads at the full input rate would have cost this much more:
    expect(cost).toBeLessThan((10_000 * 3 + 100 * 15) / MILLION);
    const openaiCost = table.cost(
      'openai:gpt-4o-mini',
      usage({ input: 2000, cachedInput: 1500, output: 10 }),
    );
    expect(openaiCost).toBeCloseTo((500 * 0.15 + 1500 * 0.075 + 10 * 0.6) / MILLION, 12);
  });

  test('an unknown model costs null, never a throw', () => {
    expect(table.cost('openai:my-local-llama', usage({ input: 5, output: 5 }))).toBeNull();
    expect(table.cost('', usage({}))).toBeNull();
    expect(table.lookup('ollama:qwen2.5-coder:7b')).toBeUndefined();
  });

  test('the replay model costs nothing', () => {
    expect(table.cost('replay:/runs/gpt4-sql.json', usage({ input: 900, output: 90 }))).toBe(0);
  });

  test('an answer from the response cache costs 0, its usage kept', () => {
    const tokens = usage({ input: 1000, output: 1000 });
    expect(table.responseCost('openai:gpt-4o', { usage: tokens, cached: true })).toBe(0);
    expect(table.responseCost('openai:gpt-4o', { usage: tokens })).toBeCloseTo(0.0125, 12);
    expect(table.responseCost('openai:unknown', { usage: tokens })).toBeNull();
  });

  test('every bundled price says where and when it was read, with sane rates', () => {
    for (const [key, fact] of Object.entries(DEFAULT_PRICES)) {
      expect(key, key).toBe(key.toLowerCase());
      expect(fact.source.length, key).toBeGreaterThan(5);
      expect(fact.asOf, key).toMatch(/^\d{4}-\d{2}$/);
      expect(fact.cachedInput, key).toBeLessThanOrEqual(fact.input);
      for (const rate of [fact.input, fact.output, fact.cachedInput, fact.cacheWrite]) {
        expect(rate, key).toBeGreaterThanOrEqual(0);
      }
    }
  });
});

describe('PriceTable.load with a price file', () => {
  test('user entries win over the bundled ones, and add models', ({ tempDir }) => {
    const file = priceFile(tempDir('prices'), {
      'gpt-4o': { input: 1, output: 2, cachedInput: 0.5 },
      'openai:my-model': {
        input: 0.2,
        output: 0.4,
        cachedInput: 0.1,
        cacheWrite: 0.3,
        source: 'our contract',
      },
      'ollama:*': { input: 0, output: 0 },
    });
    const table = PriceTable.load(file);
    const tokens = usage({ input: MILLION, output: MILLION });
    // A bare user key matches a dated, provider-qualified id before any bundled entry.
    expect(table.cost('openai:gpt-4o-2024-08-06', tokens)).toBeCloseTo(3, 9);
    expect(table.lookup('openai:gpt-4o')).toMatchObject({ key: 'gpt-4o', from: 'user' });
    expect(table.cost('openai:my-model', usage({ input: 100, cachedInput: 40, cacheWrite: 10 }))).toBeCloseTo(
      (50 * 0.2 + 40 * 0.1 + 10 * 0.3) / MILLION,
      12,
    );
    expect(table.cost('ollama:qwen2.5-coder:7b', tokens)).toBe(0);
    // Bundled entries the file does not name stay.
    expect(table.lookup('anthropic:claude-3-haiku-20240307')).toMatchObject({ from: 'default' });
  });

  test('a user entry without cache rates charges them at the input rate (never less)', ({ tempDir }) => {
    const table = PriceTable.load(priceFile(tempDir('prices'), { 'vllm:qwen': { input: 1, output: 1 } }));
    expect(table.cost('vllm:qwen', usage({ input: MILLION, cachedInput: MILLION / 2 }))).toBeCloseTo(1, 9);
  });

  const bad: [string, unknown, RegExp][] = [
    ['a missing output rate', { 'openai:x': { input: 1 } }, /openai:x\.output: missing/],
    ['a negative rate', { 'openai:x': { input: -1, output: 1 } }, /openai:x\.input: .*>=0/],
    ['a rate as text', { 'openai:x': { input: '1', output: 1 } }, /openai:x\.input: .*number/],
    [
      'a misspelt field',
      { 'openai:x': { input: 1, output: 1, cached: 1 } },
      /openai:x: unknown field cached/,
    ],
    ['an array', [{ input: 1 }], /expected an object of model names to prices/],
    ['broken JSON', '{"openai:x": {"input": 1,', /not valid JSON/],
  ];
  for (const [what, content, message] of bad) {
    test(`refuses ${what} in one line naming the file and the field`, ({ tempDir }) => {
      const file = priceFile(tempDir('prices'), content);
      let thrown: unknown;
      try {
        PriceTable.load(file);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(UsageError);
      const text = (thrown as Error).message;
      expect(text).toContain(`--prices ${file}: `);
      expect(text).toMatch(message);
      expect(text).not.toContain('\n');
    });
  }

  test('refuses a missing file in one line', ({ tempDir }) => {
    const file = join(tempDir('prices'), 'nope.json');
    expect(() => PriceTable.load(file)).toThrow(`--prices ${file}: the file does not exist`);
  });
});
