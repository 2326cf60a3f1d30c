import { afterEach, describe, expect, it } from 'vitest';
import {
  createModelClient,
  type ModelClientOptions,
} from '../../../../src/agents/llm/create-model-client.js';
import type { ModelRequest } from '../../../../src/agents/llm/model-client.js';
import { IntercodeError } from '../../../../src/core/errors.js';
import {
  type LlmScript,
  ScriptedLlmServer,
  type ScriptedLlmServerOptions,
} from '../../../../src/testkit/index.js';

const servers: ScriptedLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const QUICK = { initialDelayMs: 5, maxDelayMs: 20, maxTotalWaitMs: 2_000, jitter: 0 };

async function setup(
  script: LlmScript,
  serverOptions: ScriptedLlmServerOptions = {},
  options: ModelClientOptions = {},
) {
  const server = await ScriptedLlmServer.start(script, { apiKey: 'ant-key', ...serverOptions });
  servers.push(server);
  const client = createModelClient(
    { provider: 'anthropic', model: 'claude-test' },
    { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'ant-key' }, retry: QUICK, ...options },
  );
  return { server, client };
}

const REQUEST: ModelRequest = {
  messages: [
    { role: 'system', content: 'You write SQL.' },
    { role: 'user', content: 'Example: count the rows.\nSELECT COUNT(*) FROM t;', cacheBreakpoint: true },
    { role: 'user', content: 'How many singers are there?' },
  ],
  context: { taskId: 's1', turn: 0, strategy: 'try-again', env: 'sql' },
};

interface AnthropicBody {
  system?: { text: string; cache_control?: unknown }[];
  messages: { role: string; content: { type: string; text?: string; cache_control?: unknown }[] }[];
  max_tokens: number;
}

describe('the anthropic provider through the AI SDK', () => {
  it('maps text, thinking, usage with cache reads and writes, and the stop reason', async () => {
    const { server, client } = await setup([
      {
        text: 'SELECT COUNT(*) FROM singer;',
        reasoning: 'One table.',
        usage: { input: 500, output: 40, cachedInput: 300, cacheWrite: 150 },
      },
    ]);
    const response = await client.complete(REQUEST);
    expect(response).toMatchObject({
      text: 'SELECT COUNT(*) FROM singer;',
      reasoning: 'One table.',
      finishReason: 'stop',
      usage: { input: 500, output: 40, cachedInput: 300, cacheWrite: 150 },
      retries: [],
    });
    const request = server.requests[0];
    expect(request?.headers['x-api-key']).toBe('ant-key');
    expect(request?.headers['anthropic-version']).toBeDefined();
  });

  it('puts cache_control on the message marked as the end of the stable prefix, and only there', async () => {
    const { server, client } = await setup([{ text: 'ok' }]);
    await client.complete(REQUEST);
    const body = server.requests[0]?.body as AnthropicBody;
    expect(body.system?.[0]?.text).toBe('You write SQL.');
    expect(body.system?.[0]?.cache_control).toBeUndefined();
    const blocks = body.messages.flatMap((m) => m.content);
    const cached = blocks.filter((b) => b.cache_control !== undefined);
    expect(cached).toEqual([
      {
        type: 'text',
        text: 'Example: count the rows.\nSELECT COUNT(*) FROM t;',
        cache_control: { type: 'ephemeral' },
      },
    ]);
    expect(body.max_tokens).toBe(4096);
  });

  it('marks a system message that ends the prefix, and none when prompt caching is off', async () => {
    const marked = await setup([{ text: 'ok' }]);
    await marked.client.complete({
      ...REQUEST,
      messages: [
        { role: 'system', content: 'Rules.', cacheBreakpoint: true },
        { role: 'user', content: 'Go.' },
      ],
    });
    expect((marked.server.requests[0]!.body as AnthropicBody).system?.[0]?.cache_control).toEqual({
      type: 'ephemeral',
    });

    const off = await setup([{ text: 'ok' }], {}, { promptCaching: false });
    await off.client.complete(REQUEST);
    expect(JSON.stringify(off.server.requests[0]?.body)).not.toContain('cache_control');
  });

  it('returns tool_use blocks as tool calls; a non-object input has undefined arguments', async () => {
    const { client } = await setup([
      {
        toolCalls: [
          { name: 'execute', arguments: { query: 'SELECT 1' }, id: 'toolu_1' },
          { name: 'execute', arguments: 'SELECT 1', id: 'toolu_2' },
        ],
      },
    ]);
    const response = await client.complete({
      ...REQUEST,
      tools: [
        {
          name: 'execute',
          description: 'Run SQL',
          parameters: { type: 'object', properties: { query: { type: 'string' } } },
        },
      ],
    });
    expect(response.finishReason).toBe('tool-calls');
    expect(response.toolCalls).toEqual([
      {
        id: 'toolu_1',
        name: 'execute',
        arguments: { query: 'SELECT 1' },
        argumentsText: '{"query":"SELECT 1"}',
      },
      { id: 'toolu_2', name: 'execute', arguments: undefined, argumentsText: '"SELECT 1"' },
    ]);
  });

  it('passes the thinking budget through and honours the request max tokens', async () => {
    const { server, client } = await setup([{ text: 'ok' }]);
    await client.complete({
      ...REQUEST,
      maxTokens: 2000,
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
    });
    expect(server.requests[0]?.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 } });
  });

  it('retries an overloaded answer (529) with its retry-after, and rejects a bad key at once', async () => {
    const { server, client } = await setup([
      { status: 529, headers: { 'retry-after': '0.1' } },
      { text: 'ok' },
    ]);
    const response = await client.complete(REQUEST);
    expect(response.retries).toEqual([{ attempt: 1, reason: '529', waitMs: 100 }]);
    expect(server.modelRequestCount).toBe(2);

    const wrong = await setup([{ text: 'never' }], {}, { apiKey: 'stale' });
    const error = await wrong.client.complete(REQUEST).catch((e: unknown) => e);
    expect(IntercodeError.isInstance(error) && error.code).toBe('MODEL_REJECTED');
    expect(wrong.server.modelRequestCount).toBe(1);
  });
});
