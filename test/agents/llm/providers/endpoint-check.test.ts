import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createModelClient,
  type ModelClientOptions,
} from '../../../../src/agents/llm/create-model-client.js';
import type { ModelClient } from '../../../../src/agents/llm/model-client.js';
import type { ModelProvider } from '../../../../src/agents/llm/model-spec.js';
import { IntercodeError } from '../../../../src/core/errors.js';
import {
  type LlmScript,
  ScriptedLlmServer,
  type ScriptedLlmServerOptions,
} from '../../../../src/testkit/index.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function serve(script: LlmScript, options: ScriptedLlmServerOptions = {}): Promise<ScriptedLlmServer> {
  const server = await ScriptedLlmServer.start(script, options);
  closers.push(() => server.close());
  return server;
}

function client(
  provider: ModelProvider,
  model: string,
  baseUrl: string,
  options: ModelClientOptions = {},
): ModelClient {
  return createModelClient(
    { provider, model },
    { baseUrl, env: {}, retry: { maxAttempts: 2, initialDelayMs: 5, jitter: 0 }, ...options },
  );
}

async function checkFailure(model: ModelClient): Promise<IntercodeError> {
  const error = await model.check!().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!IntercodeError.isInstance(error))
    throw new Error(`check did not fail with an intercode error: ${String(error)}`);
  expect(error.message).not.toContain('\n');
  return error;
}

describe('the endpoint check', () => {
  it('passes with one model-list request when the endpoint lists the model, for both APIs', async () => {
    const server = await serve([], { models: ['gpt-test', 'claude-test'], apiKey: 'k' });
    await client('openai', 'gpt-test', server.url, { apiKey: 'k' }).check!();
    await client('anthropic', 'claude-test', server.url, { apiKey: 'k' }).check!();
    expect(server.requests.map((r) => [r.api, r.method, r.path])).toEqual([
      ['openai', 'GET', '/v1/models'],
      ['anthropic', 'GET', '/v1/models'],
    ]);
  });

  it('turns a refused connection into MODEL_UNREACHABLE', async () => {
    const server = await ScriptedLlmServer.start([]);
    const url = server.url;
    await server.close();
    const error = await checkFailure(client('openai', 'm', url));
    expect(error.code).toBe('MODEL_UNREACHABLE');
    expect(error.message).toBe(
      `openai:m: cannot reach ${url} (ECONNREFUSED); is the server running, and is OPENAI_BASE_URL right?`,
    );
  });

  it('turns an endpoint that never answers into MODEL_UNREACHABLE within the timeout', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => {
      sockets.push(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise((resolve) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => resolve());
        }),
    );
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const started = Date.now();
    const error = await checkFailure(
      client('anthropic', 'm', `http://127.0.0.1:${address.port}/v1`, { timeoutMs: 300 }),
    );
    expect(error.code).toBe('MODEL_UNREACHABLE');
    expect(error.message).toContain('no answer within 0.3 s');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('turns a refused key into MODEL_REJECTED naming the variable', async () => {
    const server = await serve([], { apiKey: 'right' });
    const openai = await checkFailure(client('openai', 'm', server.url, { apiKey: 'wrong' }));
    expect(openai.code).toBe('MODEL_REJECTED');
    expect(openai.message).toMatch(/refused the API key \(401: .*\); check OPENAI_API_KEY$/);
    const anthropic = await checkFailure(client('anthropic', 'm', server.url, { apiKey: 'wrong' }));
    expect(anthropic.message).toMatch(/check ANTHROPIC_API_KEY$/);
  });

  it('confirms a model missing from the list with a 1-token request, which rejects an unknown model', async () => {
    const server = await serve([{ text: 'never' }], { models: ['real-model'] });
    const error = await checkFailure(client('openai', 'no-such-model', server.url));
    expect(error.code).toBe('MODEL_REJECTED');
    expect(error.message).toMatch(
      /^openai:no-such-model: the endpoint .* does not know model "no-such-model" \(404: /,
    );
    const probe = server.requests[1];
    expect(probe).toMatchObject({ method: 'POST', model: 'no-such-model' });
    expect(probe?.body).toMatchObject({ max_tokens: 1 });
  });

  it('accepts a model the list lacks when the server answers it anyway (llama.cpp), or has no list', async () => {
    const anyName = await serve([{ text: 'o' }]);
    await client('openai', 'whatever-name', anyName.url).check!();
    expect(anyName.modelRequestCount).toBe(1);
    const noList = await serve([{ text: 'o' }], { modelsEndpoint: false });
    await client('anthropic', 'local', noList.url).check!();
    expect(noList.requests.map((r) => r.method)).toEqual(['GET', 'POST']);
  });
});
