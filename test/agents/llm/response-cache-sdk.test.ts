import { describe, expect } from 'vitest';
import { createModelClient } from '../../../src/agents/llm/create-model-client.js';
import type { ModelRequest } from '../../../src/agents/llm/model-client.js';
import { PriceTable } from '../../../src/agents/llm/price-table.js';
import { withResponseCache } from '../../../src/agents/llm/response-cache.js';
import { type LlmScript, ScriptedLlmServer } from '../../../src/testkit/index.js';
import { test } from '../../support/fixtures.js';

// The response cache and the price table in front of the real AI SDK clients, talking to a local
// server that speaks the providers' APIs: the requests are counted where they arrive.

const MILLION = 1_000_000;
/** Fast retries: the policy itself is tested with the providers. */
const QUICK = { initialDelayMs: 5, maxDelayMs: 20, maxTotalWaitMs: 2_000, jitter: 0 };

const REQUEST: ModelRequest = {
  messages: [
    { role: 'system', content: 'You answer with one SQL query in a fenced block.', cacheBreakpoint: true },
    { role: 'user', content: 'How many singers are there?' },
  ],
  temperature: 0,
  maxTokens: 128,
  context: { taskId: 'spider-0', turn: 0, strategy: 'try-again', env: 'sql' },
};

async function serve(
  script: LlmScript,
  onClose: (close: () => Promise<void>) => void,
): Promise<ScriptedLlmServer> {
  const server = await ScriptedLlmServer.start(script);
  onClose(() => server.close());
  return server;
}

describe('the response cache with the AI SDK clients', () => {
  test('Anthropic: the second identical request never reaches the server, and costs 0', async ({
    tempDir,
    onTestFinished,
  }) => {
    const server = await serve(
      [
        {
          text: '```sql\nSELECT count(*) FROM singer\n```',
          usage: { input: 2000, cachedInput: 1500, cacheWrite: 300, output: 40 },
        },
        { text: '```sql\nSELECT count(*) FROM singer;\n```', usage: { input: 2000, output: 41 } },
      ],
      (close) => onTestFinished(close),
    );
    const dir = tempDir('cache');
    const client = createModelClient(
      { provider: 'anthropic', model: 'claude-3-5-sonnet-20241022' },
      { baseUrl: server.url, apiKey: 'test-key', env: {}, retry: QUICK },
    );
    const prices = PriceTable.load();

    const first = await withResponseCache(client, dir).complete(REQUEST);
    expect(server.modelRequestCount).toBe(1);
    expect(first.cached).toBeUndefined();
    expect(first.usage).toMatchObject({ input: 2000, cachedInput: 1500, cacheWrite: 300, output: 40 });
    // Sonnet: $3 input, $0.30 cache read, $3.75 cache write, $15 output per million tokens.
    const paid = prices.responseCost(client.id, first);
    expect(paid).toBeCloseTo((200 * 3 + 1500 * 0.3 + 300 * 3.75 + 40 * 15) / MILLION, 12);

    // A re-run (a new cache on the same folder), another task with the same prompt.
    const rerun = withResponseCache(client, dir);
    const again = await rerun.complete({ ...REQUEST, context: { ...REQUEST.context, taskId: 'spider-7' } });
    expect(server.modelRequestCount).toBe(1);
    expect(again).toMatchObject({ cached: true, text: first.text, usage: first.usage, latencyMs: 0 });
    expect(prices.responseCost(client.id, again)).toBe(0);

    // Another temperature is another request.
    const warmer = await rerun.complete({ ...REQUEST, temperature: 0.5 });
    expect(server.modelRequestCount).toBe(2);
    expect(warmer.text).toContain('singer;');
    expect(rerun.stats).toMatchObject({ hits: 1, misses: 1, writes: 1 });
  });

  test('OpenAI-compatible: a rejected request is not cached, and tool calls come back whole', async ({
    tempDir,
    onTestFinished,
  }) => {
    const server = await serve(
      [
        { status: 400, errorMessage: 'bad request' },
        {
          toolCalls: [{ id: 'call-1', name: 'execute', arguments: { code: 'ls -la' } }],
          usage: { input: 500, cachedInput: 400, output: 20, reasoning: 8 },
        },
      ],
      (close) => onTestFinished(close),
    );
    const client = createModelClient(
      { provider: 'openai', model: 'gpt-4o-mini' },
      { baseUrl: server.url, apiKey: 'test-key', env: {}, retry: QUICK },
    );
    const cached = withResponseCache(client, tempDir('cache'));
    await expect(cached.complete(REQUEST)).rejects.toThrow();
    expect(server.modelRequestCount).toBe(1);
    const answer = await cached.complete(REQUEST);
    expect(server.modelRequestCount).toBe(2);
    expect(answer.toolCalls).toEqual([
      { id: 'call-1', name: 'execute', arguments: { code: 'ls -la' }, argumentsText: '{"code":"ls -la"}' },
    ]);
    const hit = await cached.complete(REQUEST);
    expect(server.modelRequestCount).toBe(2);
    expect(hit.toolCalls).toEqual(answer.toolCalls);
    expect(hit.usage).toEqual(answer.usage);
    // gpt-4o-mini: $0.15 input, $0.075 cached, $0.60 output per million tokens.
    expect(PriceTable.load().responseCost(client.id, answer)).toBeCloseTo(
      (100 * 0.15 + 400 * 0.075 + 20 * 0.6) / MILLION,
      12,
    );
  });
});
