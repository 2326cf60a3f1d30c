import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { ModelClient, ModelRequest, ModelResponse } from '../../../src/agents/llm/model-client.js';
import { withResponseCache } from '../../../src/agents/llm/response-cache.js';
import { canonicalJson, responseCacheKey } from '../../../src/agents/llm/response-cache-key.js';
import { ResponseCacheStore } from '../../../src/agents/llm/response-cache-store.js';
import { UsageError } from '../../../src/core/errors.js';
import { test } from '../../support/fixtures.js';

/**
 * A model that answers each request with a text naming how many calls it has had (so an answer
 * that came from it can be told from one that came from the cache), after `delayMs`.
 */
class CountingModel implements ModelClient {
  readonly id: string;
  readonly provider: string;
  readonly model: string;
  calls = 0;
  failNext = false;

  constructor(
    id = 'openai:gpt-4o',
    private readonly delayMs = 0,
  ) {
    this.id = id;
    [this.provider = '', this.model = ''] = id.split(':', 2);
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.calls += 1;
    const call = this.calls;
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.failNext) {
      this.failNext = false;
      throw new Error('HTTP 500');
    }
    return {
      text: `answer ${call} to ${request.messages.at(-1)?.content}`,
      reasoning: 'thinking',
      toolCalls: [{ id: 't1', name: 'execute', arguments: { code: 'ls' }, argumentsText: '{"code":"ls"}' }],
      finishReason: 'stop',
      usage: { input: 100, output: 20, cachedInput: 40, cacheWrite: 0, reasoning: 5 },
      latencyMs: 250,
      retries: [{ attempt: 1, reason: '429', waitMs: 1000 }],
      modelId: 'gpt-4o-2024-08-06',
    };
  }
}

function request(content: string, fields: Partial<ModelRequest> = {}): ModelRequest {
  return {
    messages: [
      { role: 'system', content: 'You write Bash.', cacheBreakpoint: true },
      { role: 'user', content },
    ],
    temperature: 0,
    maxTokens: 256,
    context: { taskId: 'task-1', turn: 0, strategy: 'single', env: 'bash' },
    ...fields,
  };
}

function entryFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.json'));
}

describe('withResponseCache', () => {
  test('answers an identical request from disk without a second call', async ({ tempDir }) => {
    const dir = tempDir('cache');
    const model = new CountingModel();
    const first = await withResponseCache(model, dir).complete(request('list files'));
    expect(first.cached).toBeUndefined();
    expect(first.text).toBe('answer 1 to list files');
    // A new client on the same folder (a re-run) gets the same answer, marked, with no call.
    const cached = withResponseCache(model, dir);
    const again = await cached.complete(request('list files'));
    expect(model.calls).toBe(1);
    expect(again).toEqual({ ...first, cached: true, latencyMs: 0, retries: [] });
    expect(again.usage).toEqual(first.usage);
    expect(cached.stats).toEqual({ hits: 1, misses: 0, corrupt: 0, writes: 0, writeErrors: 0 });
    expect(entryFiles(dir)).toHaveLength(1);
  });

  test('a different message, temperature, limit, stop, tool list, provider option or model misses', async ({
    tempDir,
  }) => {
    const dir = tempDir('cache');
    const model = new CountingModel();
    const cached = withResponseCache(model, dir);
    const variants: ModelRequest[] = [
      request('list files'),
      request('list all files'),
      request('list files', { temperature: 0.7 }),
      request('list files', { maxTokens: 512 }),
      request('list files', { stop: ['\n'] }),
      request('list files', { tools: [{ name: 'execute', description: 'Runs code', parameters: {} }] }),
      request('list files', { providerOptions: { anthropic: { thinking: { budgetTokens: 1024 } } } }),
    ];
    for (const variant of variants) await cached.complete(variant);
    expect(model.calls).toBe(variants.length);
    const other = new CountingModel('openai:gpt-4o-mini');
    await withResponseCache(other, dir).complete(request('list files'));
    expect(other.calls).toBe(1);
    // Each variant again: all answered from disk.
    for (const variant of variants) expect((await cached.complete(variant)).cached).toBe(true);
    expect(model.calls).toBe(variants.length);
  });

  test('the request context and cache breakpoints are not part of the key', async ({ tempDir }) => {
    const dir = tempDir('cache');
    const model = new CountingModel();
    const cached = withResponseCache(model, dir);
    await cached.complete(request('list files'));
    const elsewhere = request('list files', {
      context: { taskId: 'task-9', turn: 3, strategy: 'try-again', env: 'bash', purpose: 'action' },
    });
    const moved = { ...elsewhere, messages: elsewhere.messages.map(({ ...message }) => ({ ...message })) };
    delete (moved.messages[0] as { cacheBreakpoint?: boolean }).cacheBreakpoint;
    expect((await cached.complete(moved)).cached).toBe(true);
    expect(model.calls).toBe(1);
    // The namespace (an endpoint's base URL) is.
    await withResponseCache(model, dir, { namespace: 'http://127.0.0.1:9/v1' }).complete(
      request('list files'),
    );
    expect(model.calls).toBe(2);
  });

  test('a corrupt or truncated entry is ignored and replaced, never a crash', async ({ tempDir }) => {
    const dir = tempDir('cache');
    const model = new CountingModel();
    const cached = withResponseCache(model, dir);
    const key = responseCacheKey(model.id, request('list files'));
    const path = new ResponseCacheStore(dir).pathOf(key);
    await cached.complete(request('list files'));
    const whole = readFileSync(path, 'utf8');
    const damaged = [
      whole.slice(0, Math.floor(whole.length / 2)),
      '',
      'null',
      JSON.stringify({ ...JSON.parse(whole), key: 'someone-else' }),
      JSON.stringify({ ...JSON.parse(whole), response: { text: 3 } }),
    ];
    for (const [index, text] of damaged.entries()) {
      writeFileSync(path, text);
      const answer = await cached.complete(request('list files'));
      expect(answer.cached, `damage ${index}`).toBeUndefined();
      expect(model.calls).toBe(index + 2);
      // Replaced by a whole entry: the next identical request is a hit.
      expect((await cached.complete(request('list files'))).text).toBe(answer.text);
      expect(model.calls).toBe(index + 2);
    }
    expect(cached.stats.corrupt).toBe(damaged.length);
  });

  test('only successful answers are stored', async ({ tempDir }) => {
    const dir = tempDir('cache');
    const model = new CountingModel();
    const cached = withResponseCache(model, dir);
    model.failNext = true;
    await expect(cached.complete(request('list files'))).rejects.toThrow('HTTP 500');
    expect(entryFiles(dir)).toHaveLength(0);
    const failing: ModelClient = {
      id: 'openai:gpt-4o',
      provider: 'openai',
      model: 'gpt-4o',
      complete: async (sent) => ({ ...(await model.complete(sent)), finishReason: 'error' }),
    };
    await withResponseCache(failing, dir).complete(request('list files'));
    expect(entryFiles(dir)).toHaveLength(0);
    await cached.complete(request('list files'));
    expect(entryFiles(dir)).toHaveLength(1);
  });

  test('identical requests in flight at once make one call', async ({ tempDir }) => {
    const model = new CountingModel('openai:gpt-4o', 30);
    const cached = withResponseCache(model, tempDir('cache'));
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => cached.complete(request('list files'))),
    );
    expect(model.calls).toBe(1);
    expect(answers.filter((answer) => answer.cached)).toHaveLength(4);
    expect(new Set(answers.map((answer) => answer.text))).toEqual(new Set(['answer 1 to list files']));
  });

  test('two writers of one folder race without a reader ever seeing a partial entry', async ({ tempDir }) => {
    const dir = tempDir('cache');
    // Two caches with their own clients (as two worker processes would be), 20 prompts each, the
    // same prompts in the same order, and a reader polling every entry while they write.
    const models = [new CountingModel('openai:gpt-4o', 2), new CountingModel('openai:gpt-4o', 3)];
    const writers = models.map((model) => withResponseCache(model, dir));
    const prompts = Array.from({ length: 20 }, (_, index) => `prompt ${index}`);
    const store = new ResponseCacheStore(dir);
    const keys = prompts.map((prompt) => responseCacheKey('openai:gpt-4o', request(prompt)));
    let writing = true;
    const seen = { hit: 0, miss: 0, corrupt: 0 };
    const reader = (async () => {
      while (writing) {
        for (const key of keys) seen[(await store.read(key)).kind] += 1;
      }
    })();
    await Promise.all(
      writers.map(async (writer) => {
        for (const prompt of prompts) await writer.complete(request(prompt));
      }),
    );
    writing = false;
    await reader;
    expect(seen.corrupt).toBe(0);
    expect(seen.hit + seen.miss).toBeGreaterThan(0);
    for (const key of keys) expect((await store.read(key)).kind).toBe('hit');
    // No temporary file is left, and every entry is one JSON line.
    const names = readdirSync(dir, { recursive: true, encoding: 'utf8' });
    expect(names.filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(entryFiles(dir)).toHaveLength(prompts.length);
    // Each prompt was asked at most once per writer.
    expect(models[0]!.calls + models[1]!.calls).toBeLessThanOrEqual(2 * prompts.length);
    expect(models[0]!.calls + models[1]!.calls).toBeGreaterThanOrEqual(prompts.length);
  });

  test('the replay model is never cached', async ({ tempDir }) => {
    const dir = tempDir('cache');
    const model = new CountingModel('replay:/runs/recorded.json');
    const cached = withResponseCache(model, dir);
    await cached.complete(request('list files'));
    expect((await cached.complete(request('list files'))).cached).toBeUndefined();
    expect(model.calls).toBe(2);
    expect(cached.cacheDir).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });

  test('a folder that cannot be written is refused in one line before any call', ({ tempDir }) => {
    const parent = tempDir('cache');
    const file = join(parent, 'a-file');
    writeFileSync(file, '');
    expect(() => withResponseCache(new CountingModel(), join(file, 'cache'))).toThrow(UsageError);
    expect(() => withResponseCache(new CountingModel(), join(file, 'cache'))).toThrow(
      `--cache ${join(file, 'cache')}: the folder cannot be created or written (ENOTDIR)`,
    );
    if (process.getuid?.() !== 0) {
      const locked = join(parent, 'locked');
      withResponseCache(new CountingModel(), locked);
      chmodSync(locked, 0o500);
      expect(() => withResponseCache(new CountingModel(), locked)).toThrow('(EACCES)');
      chmodSync(locked, 0o700);
    }
  });
});

describe('canonicalJson', () => {
  test('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { f: 1, e: undefined }], c: 2 } })).toBe(
      '{"a":{"c":2,"d":[3,{"f":1}]},"b":1}',
    );
    expect(canonicalJson({ x: 1, y: undefined })).toBe(canonicalJson({ x: 1 }));
  });
});
