import { afterEach, describe, expect, it } from 'vitest';
import { createModelClient, type ModelClientOptions } from '../../../src/agents/llm/create-model-client.js';
import type { ModelSpec } from '../../../src/agents/llm/model-spec.js';
import { IntercodeError } from '../../../src/core/errors.js';
import { ScriptedLlmServer } from '../../../src/testkit/index.js';

const servers: ScriptedLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function failure(spec: ModelSpec, options: ModelClientOptions): IntercodeError {
  try {
    createModelClient(spec, options);
  } catch (error) {
    if (IntercodeError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('the client was made');
}

describe('createModelClient', () => {
  it('needs a key for the public APIs, and says which variable to set', () => {
    const openai = failure({ provider: 'openai', model: 'gpt-4o' }, { env: {} });
    expect(openai.code).toBe('MODEL_NO_API_KEY');
    expect(openai.message).toBe(
      '--model openai:gpt-4o: no API key; set OPENAI_API_KEY (or set OPENAI_BASE_URL to a server that needs none)',
    );
    const anthropic = failure(
      { provider: 'anthropic', model: 'claude-x' },
      { env: { ANTHROPIC_API_KEY: '  ' } },
    );
    expect(anthropic.code).toBe('MODEL_NO_API_KEY');
    expect(anthropic.message).toContain('ANTHROPIC_API_KEY');
  });

  it('makes a client without a key for a custom base URL, and nothing is sent on creation', async () => {
    const server = await ScriptedLlmServer.start([{ text: 'hello' }]);
    servers.push(server);
    const client = createModelClient(
      { provider: 'openai', model: 'qwen' },
      { env: { OPENAI_BASE_URL: `${server.url}/` } },
    );
    expect(client).toMatchObject({ id: 'openai:qwen', provider: 'openai', model: 'qwen' });
    expect(server.requestCount).toBe(0);
    const response = await client.complete({
      messages: [{ role: 'user', content: 'hi' }],
      context: { taskId: 't', turn: 0, strategy: 'single', env: 'bash' },
    });
    expect(response.text).toBe('hello');
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
  });

  it('prefers the options over the environment', async () => {
    const server = await ScriptedLlmServer.start([{ text: 'ok' }], { apiKey: 'from-option' });
    servers.push(server);
    const client = createModelClient(
      { provider: 'openai', model: 'm' },
      {
        baseUrl: server.url,
        apiKey: 'from-option',
        env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'from-env' },
      },
    );
    await client.complete({
      messages: [{ role: 'user', content: 'hi' }],
      context: { taskId: 't', turn: 0, strategy: 'single', env: 'bash' },
    });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer from-option');
  });

  it('rejects a base URL that is not http(s) and a timeout that is not positive, naming the input', () => {
    const fromEnv = failure(
      { provider: 'openai', model: 'm' },
      { env: { OPENAI_BASE_URL: 'localhost:8000' } },
    );
    expect(fromEnv.code).toBe('USAGE');
    expect(fromEnv.message).toBe('OPENAI_BASE_URL "localhost:8000": expected an http:// or https:// URL');
    const fromOption = failure({ provider: 'anthropic', model: 'm' }, { baseUrl: 'not a url', env: {} });
    expect(fromOption.message).toBe(
      '--base-url "not a url": not a URL; expected e.g. http://127.0.0.1:8000/v1',
    );
    const timeout = failure({ provider: 'openai', model: 'm' }, { apiKey: 'k', timeoutMs: 0, env: {} });
    expect(timeout.code).toBe('USAGE');
  });
});
