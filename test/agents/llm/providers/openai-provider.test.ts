import { afterEach, describe, expect, it } from 'vitest';
import {
  createModelClient,
  type ModelClientOptions,
} from '../../../../src/agents/llm/create-model-client.js';
import type { ModelRequest } from '../../../../src/agents/llm/model-client.js';
import type { RetryEvent } from '../../../../src/agents/llm/retry-policy.js';
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

/** Fast retries: the arithmetic is tested in retry-policy.test.ts. */
const QUICK = { initialDelayMs: 5, maxDelayMs: 20, maxTotalWaitMs: 2_000, jitter: 0 };

async function setup(
  script: LlmScript,
  serverOptions: ScriptedLlmServerOptions = {},
  options: ModelClientOptions = {},
) {
  const server = await ScriptedLlmServer.start(script, serverOptions);
  servers.push(server);
  const retries: RetryEvent[] = [];
  const client = createModelClient(
    { provider: 'openai', model: 'gpt-test' },
    { baseUrl: server.url, env: {}, retry: QUICK, onRetry: (e) => retries.push(e), ...options },
  );
  return { server, client, retries };
}

const REQUEST: ModelRequest = {
  messages: [
    { role: 'system', content: 'You write bash.', cacheBreakpoint: true },
    { role: 'user', content: 'List the files.' },
  ],
  temperature: 0,
  maxTokens: 64,
  stop: ['\nObservation'],
  context: { taskId: 't1', turn: 0, strategy: 'single', env: 'bash' },
};

const TOOLS = [
  {
    name: 'execute',
    description: 'Run a command',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
];

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(IntercodeError.isInstance(error)).toBe(true);
  return (error as IntercodeError).code;
}

describe('the openai provider through the AI SDK', () => {
  it('sends the messages and settings and maps text, usage, reasoning and finish reason', async () => {
    const { server, client } = await setup([
      {
        text: 'ls -la',
        reasoning: 'Listing is enough.',
        usage: { input: 120, output: 30, cachedInput: 100, reasoning: 12 },
      },
    ]);
    const response = await client.complete(REQUEST);
    expect(response).toMatchObject({
      text: 'ls -la',
      reasoning: 'Listing is enough.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { input: 120, output: 30, cachedInput: 100, cacheWrite: 0, reasoning: 12 },
      retries: [],
      modelId: 'gpt-test',
    });
    expect(response.latencyMs).toBeGreaterThan(0);
    const sent = server.requests[0]?.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      model: 'gpt-test',
      temperature: 0,
      max_tokens: 64,
      stop: ['\nObservation'],
      messages: [
        { role: 'system', content: 'You write bash.' },
        { role: 'user', content: 'List the files.' },
      ],
    });
    expect(JSON.stringify(sent)).not.toContain('cache_control');
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('returns tool calls with their raw argument text, and undefined arguments for bad JSON', async () => {
    const { server, client } = await setup([
      {
        toolCalls: [
          { name: 'execute', arguments: '{"command": "ls"}', id: 'call_a' },
          { name: 'execute', arguments: '{"command": "ls', id: 'call_b' },
        ],
      },
    ]);
    const response = await client.complete({ ...REQUEST, tools: TOOLS });
    expect(response.finishReason).toBe('tool-calls');
    expect(response.toolCalls).toEqual([
      { id: 'call_a', name: 'execute', arguments: { command: 'ls' }, argumentsText: '{"command": "ls"}' },
      { id: 'call_b', name: 'execute', arguments: undefined, argumentsText: '{"command": "ls' },
    ]);
    expect(server.requests[0]?.body).toMatchObject({
      tools: [{ type: 'function', function: { name: 'execute', description: 'Run a command' } }],
    });
  });

  it('sends earlier tool calls and their results back in the API shape', async () => {
    const { server, client } = await setup([{ text: 'done' }]);
    await client.complete({
      ...REQUEST,
      tools: TOOLS,
      messages: [
        ...REQUEST.messages,
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'c1', name: 'execute', arguments: { command: 'ls' }, argumentsText: '{"command":"ls"}' },
          ],
        },
        { role: 'tool', toolCallId: 'c1', toolName: 'execute', content: 'a.txt' },
      ],
    });
    expect(server.requests[0]?.body).toMatchObject({
      messages: [
        {},
        {},
        {
          role: 'assistant',
          tool_calls: [{ id: 'c1', function: { name: 'execute', arguments: '{"command":"ls"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
      ],
    });
  });

  it('passes provider options through under the openai key', async () => {
    const { server, client } = await setup([{ text: 'ok' }]);
    await client.complete({ ...REQUEST, providerOptions: { openai: { reasoningEffort: 'low', top_k: 5 } } });
    expect(server.requests[0]?.body).toMatchObject({ reasoning_effort: 'low', top_k: 5 });
  });

  it('returns the SDK warnings as lines instead of printing them', async () => {
    const { client } = await setup([{ text: 'ok' }]);
    const response = await client.complete({
      ...REQUEST,
      providerOptions: { 'openai-compatible': { user: 'u1' } },
    });
    expect(response.warnings).toEqual([
      "The 'openai-compatible' key in providerOptions is deprecated. Use 'openaiCompatible' instead.",
    ]);
  });

  it('sends the API key as a bearer token when one is given', async () => {
    const { server, client } = await setup([{ text: 'ok' }], { apiKey: 'sk-local' }, { apiKey: 'sk-local' });
    await client.complete(REQUEST);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-local');
  });

  it('waits as long as Retry-After asks on a 429, then succeeds; each retry is reported', async () => {
    const { server, client, retries } = await setup([
      { status: 429, headers: { 'retry-after': '0.3' } },
      { status: 429, headers: { 'retry-after-ms': '150' } },
      { text: 'ok' },
    ]);
    const started = Date.now();
    const response = await client.complete(REQUEST);
    expect(Date.now() - started).toBeGreaterThanOrEqual(440);
    expect(response.text).toBe('ok');
    expect(response.retries).toEqual([
      { attempt: 1, reason: '429', waitMs: 300 },
      { attempt: 2, reason: '429', waitMs: 150 },
    ]);
    expect(retries.map((r) => [r.reason, r.context.taskId])).toEqual([
      ['429', 't1'],
      ['429', 't1'],
    ]);
    expect(server.modelRequestCount).toBe(3);
  });

  it('retries 500s until an answer comes', async () => {
    const { server, client } = await setup([{ status: 500 }, { status: 503 }, { text: 'ok' }]);
    const response = await client.complete(REQUEST);
    expect(response.retries.map((r) => r.reason)).toEqual(['500', '503']);
    expect(server.modelRequestCount).toBe(3);
  });

  it('gives up on 500s forever with MODEL_FAILED after the attempt cap, in bounded time', async () => {
    const { server, client } = await setup(
      () => ({ status: 500 }),
      {},
      { retry: { ...QUICK, maxAttempts: 4 } },
    );
    const started = Date.now();
    expect(await codeOf(client.complete(REQUEST))).toBe('MODEL_FAILED');
    expect(server.modelRequestCount).toBe(4);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('stops when the next wait would pass the total wait budget', async () => {
    const { server, client } = await setup(
      () => ({ status: 429, headers: { 'retry-after': '0.2' } }),
      {},
      { retry: { ...QUICK, maxAttempts: 10, maxTotalWaitMs: 500 } },
    );
    const error = await client.complete(REQUEST).catch((e: unknown) => e);
    expect((error as IntercodeError).code).toBe('MODEL_FAILED');
    expect((error as Error).message).toMatch(/retry budget/);
    expect(server.modelRequestCount).toBe(3);
  });

  it('retries a malformed JSON answer, then fails with MODEL_BAD_RESPONSE', async () => {
    const ok = await setup([{ rawBody: '{"choices": [' }, { text: 'fine' }]);
    const response = await ok.client.complete(REQUEST);
    expect(response.text).toBe('fine');
    expect(response.retries.map((r) => r.reason)).toEqual(['bad response']);

    const bad = await setup(
      () => ({ rawBody: 'not json at all' }),
      {},
      { retry: { ...QUICK, maxAttempts: 3 } },
    );
    expect(await codeOf(bad.client.complete(REQUEST))).toBe('MODEL_BAD_RESPONSE');
    expect(bad.server.modelRequestCount).toBe(3);
  });

  it('aborts an answer slower than the timeout and retries it', async () => {
    const { server, client } = await setup(
      [{ text: 'late', delayMs: 2_000 }, { text: 'quick' }],
      {},
      { timeoutMs: 200 },
    );
    const started = Date.now();
    const response = await client.complete(REQUEST);
    expect(response.text).toBe('quick');
    expect(response.retries.map((r) => r.reason)).toEqual(['timeout']);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(server.modelRequestCount).toBe(2);
  });

  it('retries a connection closed mid-request', async () => {
    const { client } = await setup([{ closeConnection: true }, { text: 'back' }]);
    const response = await client.complete(REQUEST);
    expect(response.text).toBe('back');
    expect(response.retries).toHaveLength(1);
    expect(response.retries[0]?.reason).toMatch(/^connection/);
  });

  it('retries a refused connection, then fails with MODEL_FAILED naming it', async () => {
    const gone = await ScriptedLlmServer.start([]);
    await gone.close();
    const reasons: string[] = [];
    const client = createModelClient(
      { provider: 'openai', model: 'm' },
      {
        baseUrl: gone.url,
        env: {},
        retry: { ...QUICK, maxAttempts: 3 },
        onRetry: (e) => reasons.push(e.reason),
      },
    );
    const error = await client.complete(REQUEST).catch((e: unknown) => e);
    expect((error as IntercodeError).code).toBe('MODEL_FAILED');
    expect((error as Error).message).toMatch(/gave up after 3 attempts.*last failure connection refused/);
    expect(reasons).toEqual(['connection refused', 'connection refused']);
  });

  it('fails at once with MODEL_REJECTED on 401, 400 and an unknown model', async () => {
    const unauthorised = await setup([{ text: 'never' }], { apiKey: 'right' }, { apiKey: 'wrong' });
    expect(await codeOf(unauthorised.client.complete(REQUEST))).toBe('MODEL_REJECTED');
    expect(unauthorised.server.modelRequestCount).toBe(1);

    const badRequest = await setup([{ status: 400, errorMessage: 'max_tokens too large' }]);
    const error = await badRequest.client.complete(REQUEST).catch((e: unknown) => e);
    expect((error as IntercodeError).code).toBe('MODEL_REJECTED');
    expect((error as Error).message).toContain('max_tokens too large');

    const unknown = await setup([{ text: 'never' }], { models: ['other'] });
    expect(await codeOf(unknown.client.complete(REQUEST))).toBe('MODEL_REJECTED');
    expect(unknown.server.modelRequestCount).toBe(1);
  });

  it('stops waiting when the caller aborts, without a retry error', async () => {
    const { client } = await setup(
      () => ({ status: 503, headers: { 'retry-after': '5' } }),
      {},
      { retry: { maxTotalWaitMs: 60_000 } },
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('interrupted')), 100);
    await expect(client.complete(REQUEST, controller.signal)).rejects.toThrow('interrupted');
  });
});
