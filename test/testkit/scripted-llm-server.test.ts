import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedLlmServer } from '../../src/testkit/index.js';

const servers: ScriptedLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(...args: Parameters<typeof ScriptedLlmServer.start>): Promise<ScriptedLlmServer> {
  const server = await ScriptedLlmServer.start(...args);
  servers.push(server);
  return server;
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('ScriptedLlmServer', () => {
  it('answers OpenAI chat completions in the wire format, with tool calls, reasoning and usage', async () => {
    const server = await start([
      {
        text: 'ls',
        reasoning: 'think',
        toolCalls: [{ name: 'execute', arguments: { command: 'ls' } }],
        usage: { input: 20, output: 9, cachedInput: 8, reasoning: 3 },
      },
    ]);
    const res = await post(`${server.url}/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      choices: [
        {
          message: {
            content: 'ls',
            reasoning_content: 'think',
            tool_calls: [{ type: 'function', function: { name: 'execute', arguments: '{"command":"ls"}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 20,
        completion_tokens: 9,
        prompt_tokens_details: { cached_tokens: 8 },
        completion_tokens_details: { reasoning_tokens: 3 },
      },
    });
    expect(server.requests[0]).toMatchObject({ api: 'openai', path: '/v1/chat/completions', model: 'm' });
  });

  it('answers Anthropic messages with content blocks and input tokens without the cached ones', async () => {
    const server = await start([
      {
        text: 'done',
        reasoning: 'hmm',
        toolCalls: [{ name: 'submit', arguments: '{}' }],
        usage: { input: 17, output: 5, cachedInput: 4, cacheWrite: 1 },
      },
    ]);
    const res = await post(`${server.url}/messages`, { model: 'c', max_tokens: 10, messages: [] });
    const body = (await res.json()) as { content: { type: string }[]; stop_reason: string; usage: unknown };
    expect(body.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(body.content[2]).toMatchObject({ name: 'submit', input: {} });
    expect(body.stop_reason).toBe('tool_use');
    expect(body.usage).toEqual({
      input_tokens: 12,
      output_tokens: 5,
      cache_read_input_tokens: 4,
      cache_creation_input_tokens: 1,
    });
  });

  it('lists its models per API, refuses other models and a wrong key in each API error shape', async () => {
    const server = await start([{ text: 'a' }], { models: ['good'], apiKey: 'k' });
    const openAiList = await fetch(`${server.url}/models`, { headers: { authorization: 'Bearer k' } });
    expect(((await openAiList.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(['good']);
    const anthropicList = await fetch(`${server.url}/models`, {
      headers: { 'x-api-key': 'k', 'anthropic-version': '1' },
    });
    expect(await anthropicList.json()).toMatchObject({
      data: [{ type: 'model', id: 'good' }],
      has_more: false,
    });

    const unknown = await post(
      `${server.url}/chat/completions`,
      { model: 'bad', messages: [] },
      { authorization: 'Bearer k' },
    );
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'model_not_found' } });
    const badKey = await post(
      `${server.url}/messages`,
      { model: 'good', messages: [] },
      { 'x-api-key': 'no' },
    );
    expect(badKey.status).toBe(401);
    expect(await badKey.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    expect(server.requestCount).toBe(4);
    expect(server.modelRequestCount).toBe(2);
  });

  it('sends scripted statuses, headers and raw bodies, and drops the connection when asked', async () => {
    const server = await start([
      { status: 429, headers: { 'retry-after': '3' } },
      { rawBody: '{"choices": [' },
      { closeConnection: true },
    ]);
    const limited = await post(`${server.url}/chat/completions`, { model: 'm', messages: [] });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    const raw = await post(`${server.url}/chat/completions`, { model: 'm', messages: [] });
    expect(await raw.text()).toBe('{"choices": [');
    await expect(post(`${server.url}/chat/completions`, { model: 'm', messages: [] })).rejects.toThrow();
    const exhausted = await post(`${server.url}/chat/completions`, { model: 'm', messages: [] });
    expect(exhausted.status).toBe(400);
  });

  it('answers from a function of the request, after a delay', async () => {
    const server = await start((request) => ({ text: `turn ${request.index}`, delayMs: 50 }));
    const started = Date.now();
    const res = await post(`${server.url}/chat/completions`, { model: 'm', messages: [] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(await res.json()).toMatchObject({ choices: [{ message: { content: 'turn 0' } }] });
  });
});
