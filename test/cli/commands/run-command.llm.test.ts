import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { demoBashDataset } from '../../../src/datasets/demo/demo-bash.js';
import { demoSqlDataset } from '../../../src/datasets/demo/demo-sql.js';
import { type RecordedLlmRequest, ScriptedLlmServer, type ScriptStep } from '../../../src/testkit/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';
import { waitFor } from '../../support/wait-for.js';
import { episodesOf, finished, goldScript, llmArgs, userText } from './llm-run-fixture.js';

// `intercode run --agent llm` end to end: the compiled CLI in a child process, the real AI SDK
// against a ScriptedLlmServer on 127.0.0.1 that answers each task from its gold, demo/sql on SQLite
// and demo/bash in bwrap sandboxes. The CLI runs in the background (the server lives in this process).
const KEY = 'sk-test-key';
const noBwrap = await bwrapMissing();
const servers: ScriptedLlmServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

describe('intercode run --agent llm', () => {
  it('plays demo/sql with try-again: a wrong query, then the gold; per-turn model records and the summary', async ({
    cli,
    tempDir,
  }) => {
    const tasks = (await demoSqlDataset().load()).tasks.slice(0, 4);
    const server = await ScriptedLlmServer.start(goldScript(tasks, 'sql', 'SELECT 1'), {
      apiKey: KEY,
      models: ['gpt-4o'],
    });
    servers.push(server);
    const out = join(tempDir('llm-sql'), 'run');
    const result = await finished(
      cli.start(
        [
          'run',
          'demo/sql',
          '--tasks',
          '0-3',
          ...llmArgs(server, out),
          '--json',
          '--temperature',
          '0',
          '--max-tokens',
          '64',
          '--provider-option',
          'reasoningEffort=low',
        ],
        {
          env: { TEST_LLM_KEY: KEY },
          timeoutMs: 120_000,
        },
      ),
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const summary = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({
      agent: 'llm',
      model: 'openai:gpt-4o',
      strategy: 'try-again',
      n: 4,
      solved: 4,
    });
    const episodes = episodesOf(out);
    expect(episodes).toHaveLength(4);
    for (const episode of episodes) {
      expect(episode.turns.map((turn) => turn.reward)).toEqual([expect.any(Number), 1]);
      expect(episode.turns[0]!.reward).toBeLessThan(1);
      const calls = episode.turns.map((turn) => turn.llm!.calls[0]!);
      expect(calls[0]!.prefix).toMatch(/^[0-9a-f]{16}$/);
      expect(calls[1]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
      expect(episode.usage).toMatchObject({ input: 400, output: 60 });
    }
    const prefixes = JSON.parse(readFileSync(join(out, 'prefixes.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(prefixes)).toEqual([episodes[0]!.turns[0]!.llm!.calls[0]!.prefix]);
    // Two model requests per episode, nothing else but the check before the run.
    expect(server.modelRequestCount).toBe(8);
    // The sampling options reach the provider (the provider option under its own wire name).
    const body = server.requests.find((request) => request.method === 'POST')!.body as Record<
      string,
      unknown
    >;
    expect(body).toMatchObject({ temperature: 0, max_tokens: 64, reasoning_effort: 'low' });
  });

  it('plays demo/bash in sandboxes with react: execute, then submit', async ({ cli, needs, tempDir }) => {
    needs(noBwrap);
    const tasks = (await demoBashDataset().load()).tasks.slice(0, 2);
    const script = (request: RecordedLlmRequest): ScriptStep => {
      const body = request.body as { messages: { role: string }[] };
      const task = tasks.find((candidate) =>
        userText(request).includes(JSON.stringify(candidate.query).slice(1, -1)),
      );
      const submitted = body.messages.some((message) => message.role === 'assistant');
      return {
        text: submitted
          ? 'Thought: that answers it.\nAction: submit'
          : `Thought: run the command.\nAction: execute[${String(task?.gold ?? 'false')}]`,
      };
    };
    const server = await ScriptedLlmServer.start(script, { apiKey: KEY, models: ['gpt-4o'] });
    servers.push(server);
    const out = join(tempDir('llm-bash'), 'run');
    const result = await finished(
      cli.start(['run', 'demo/bash', '--tasks', '0-1', '--strategy', 'react', ...llmArgs(server, out)], {
        env: { TEST_LLM_KEY: KEY },
        timeoutMs: 120_000,
      }),
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const episodes = episodesOf(out);
    expect(episodes.map((episode) => episode.turns.map((turn) => turn.action.split(' ')[0]))).toEqual(
      tasks.map((task) => [String(task.gold).split(' ')[0], 'submit']),
    );
    expect(episodes.every((episode) => episode.success)).toBe(true);
  });

  it('plays demo/sql with native tool calls: execute, then submit; tool results go back as tool messages', async ({
    cli,
    tempDir,
  }) => {
    const tasks = (await demoSqlDataset().load()).tasks.slice(0, 2);
    const script = (request: RecordedLlmRequest): ScriptStep => {
      const messages = (request.body as { messages: { role: string }[] }).messages;
      const task = tasks.find((candidate) => userText(request).includes(candidate.query));
      return messages.some((message) => message.role === 'tool')
        ? { toolCalls: [{ name: 'submit', arguments: {} }] }
        : { toolCalls: [{ name: 'execute', arguments: { code: String(task?.gold) } }] };
    };
    const server = await ScriptedLlmServer.start(script, { apiKey: KEY, models: ['gpt-4o'] });
    servers.push(server);
    const out = join(tempDir('llm-tools'), 'run');
    const result = await finished(
      cli.start(['run', 'demo/sql', '--tasks', '0-1', '--strategy', 'tools', ...llmArgs(server, out)], {
        env: { TEST_LLM_KEY: KEY },
      }),
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const episodes = episodesOf(out);
    expect(
      episodes.map((episode) => [episode.turns.length, episode.turns[1]!.action, episode.success]),
    ).toEqual([
      [2, 'submit', true],
      [2, 'submit', true],
    ]);
    const second = server.requests.filter((request) => request.method === 'POST')[1]!;
    const body = second.body as {
      tools: { function: { name: string } }[];
      messages: Record<string, unknown>[];
    };
    expect(body.tools.map((tool) => tool.function.name).sort()).toEqual(['execute', 'submit']);
    const tool = body.messages.find((message) => message.role === 'tool')!;
    const call = (
      body.messages.find((message) => message.role === 'assistant')!.tool_calls as { id: string }[]
    )[0]!;
    expect(tool.tool_call_id).toBe(call.id);
    expect(String(tool.content)).toBe(episodes[0]!.turns[0]!.observation.slice(0, 1000));
  });

  it('a run killed with SIGKILL mid-way and resumed with the same --cache loses and repeats nothing', async ({
    cli,
    tempDir,
  }) => {
    const tasks = (await demoSqlDataset().load()).tasks.slice(0, 8);
    const server = await ScriptedLlmServer.start(goldScript(tasks, 'sql', 'SELECT 1', 150), {
      apiKey: KEY,
      models: ['gpt-4o'],
    });
    servers.push(server);
    const dir = tempDir('llm-resume');
    const out = join(dir, 'run');
    const args = [
      'run',
      'demo/sql',
      '--tasks',
      '0-7',
      ...llmArgs(server, out),
      '--cache',
      join(dir, 'cache'),
    ];
    const first = cli.start(args, { env: { TEST_LLM_KEY: KEY } });
    // Killed while the 8th model request waits for its answer: episodes 1-3 are done (two requests
    // each), episode 4 has its first turn answered (and cached) and its second in flight.
    await waitFor(() => server.modelRequestCount >= 8, 60_000, '8 model requests');
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const firstRun = server.requests.filter((request) => request.method === 'POST');
    const before = episodesOf(out);
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(8);

    const second = await finished(cli.start([...args, '--resume'], { env: { TEST_LLM_KEY: KEY } }));
    expect(second.status).toBe(0);
    const episodes = episodesOf(out);
    expect(episodes.map((episode) => episode.taskId).sort()).toEqual(tasks.map((task) => task.id).sort());
    expect(episodes.every((episode) => episode.success && episode.error === undefined)).toBe(true);
    const secondRun = server.requests.filter((request) => request.method === 'POST').slice(firstRun.length);
    const sent = new Set(firstRun.slice(0, -1).map((request) => JSON.stringify(request.body)));
    // Only the request in flight at the kill (never answered) may be sent again.
    expect(secondRun.filter((request) => sent.has(JSON.stringify(request.body)))).toEqual([]);
    expect(firstRun.length + secondRun.length).toBeLessThanOrEqual(2 * tasks.length + 1);
    // The resumed episode's first turn came from the cache.
    const cachedTurns = episodes
      .flatMap((episode) => episode.turns)
      .filter((turn) => turn.llm?.calls[0]?.cached);
    expect(cachedTurns.length).toBeGreaterThan(0);
    expect(cachedTurns.every((turn) => turn.llm!.calls[0]!.costUsd === 0)).toBe(true);
  }, 120_000);

  it('shows retries as they happen (Anthropic API); a model failure is an episode error that --resume plays again', async ({
    cli,
    tempDir,
  }) => {
    const tasks = (await demoSqlDataset().load()).tasks.slice(0, 2);
    const gold = goldScript(tasks, 'sql', 'SELECT 1');
    let failing = true;
    const script = (request: RecordedLlmRequest): ScriptStep => {
      if (request.index === 1) return { status: 429, headers: { 'retry-after': '0' } };
      // The second task's model rejects every request (a deterministic 400: no retry).
      if (failing && userText(request).includes(tasks[1]!.query))
        return { status: 400, errorMessage: 'bad request' };
      return gold(request);
    };
    const server = await ScriptedLlmServer.start(script, { apiKey: KEY, models: ['claude-test'] });
    servers.push(server);
    const out = join(tempDir('llm-retry'), 'run');
    const args = ['run', 'demo/sql', '--tasks', '0-1', ...llmArgs(server, out, 'anthropic:claude-test')];
    const first = await finished(cli.start(args, { env: { TEST_LLM_KEY: KEY } }));
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(/^intercode: model call retry 1 after 429/);
    const episodes = episodesOf(out);
    expect(episodes.map((episode) => [episode.taskId, episode.error === undefined])).toEqual([
      [tasks[0]!.id, true],
      [tasks[1]!.id, false],
    ]);
    expect(episodes[1]!.error).toMatch(/bad request/);
    const retried = episodes[0]!.turns[0]!.llm!.calls[0] as unknown as { retries: { reason: string }[] };
    expect(retried.retries).toHaveLength(1);
    expect(retried.retries[0]!.reason).toMatch(/429/);
    expect(
      server.requests
        .filter((request) => request.method === 'POST')
        .every((request) => request.api === 'anthropic'),
    ).toBe(true);
    failing = false;
    const resumed = await finished(cli.start([...args, '--resume'], { env: { TEST_LLM_KEY: KEY } }));
    expect(resumed.status).toBe(0);
    const after = episodesOf(out);
    expect(after.map((episode) => [episode.taskId, episode.success])).toEqual([
      [tasks[0]!.id, true],
      [tasks[1]!.id, true],
    ]);
  });

  it('--max-cost stops starting episodes before the cap, says so, and keeps what finished', async ({
    cli,
    tempDir,
  }) => {
    const tasks = (await demoSqlDataset().load()).tasks.slice(0, 4);
    const server = await ScriptedLlmServer.start(goldScript(tasks, 'sql', 'SELECT 1'), {
      apiKey: KEY,
      models: ['gpt-4o'],
    });
    servers.push(server);
    const out = join(tempDir('llm-cost'), 'run');
    // gpt-4o: $2.50 and $10 per million input and output tokens; an episode is two calls of 200 + 30
    // tokens, $0.0016. After the first one, a second could cross $0.003: it is not started.
    const result = await finished(
      cli.start(['run', 'demo/sql', '--tasks', '0-3', ...llmArgs(server, out), '--max-cost', '0.003'], {
        env: { TEST_LLM_KEY: KEY },
      }),
    );
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(
      /^intercode: stopped before the cost cap: --max-cost \$0\.0030: \$0\.0016 spent/,
    );
    expect(result.stdout).toMatch(/stopped before the end: --max-cost/);
    expect(episodesOf(out)).toHaveLength(1);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Record<string, unknown>;
    expect(summary).toMatchObject({ complete: false, stopReason: expect.stringMatching(/^--max-cost/) });
    expect(server.modelRequestCount).toBe(2);
  });

  it('refuses bad input in one line before any episode, leaving no run directory', async ({
    cli,
    tempDir,
  }) => {
    const server = await ScriptedLlmServer.start([], { apiKey: KEY, models: ['gpt-4o'] });
    servers.push(server);
    const dir = tempDir('llm-bad');
    const out = join(dir, 'run');
    const base = ['run', 'demo/sql', '--out', out];
    const cases: { args: string[]; error: RegExp; status: number; env?: Record<string, string> }[] = [
      { args: ['--model', 'nosuch:model'], error: /nosuch/, status: 1 },
      {
        args: ['--model', 'openai:gpt-4o'],
        error: /OPENAI_API_KEY|key/i,
        status: 1,
        env: { OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
      },
      {
        args: [
          '--model',
          'openai:gpt-4o',
          '--base-url',
          'http://127.0.0.1:9/v1',
          '--api-key-env',
          'TEST_LLM_KEY',
        ],
        error: /127\.0\.0\.1:9|reach/i,
        status: 2,
      },
      {
        args: ['--model', 'openai:gpt-5-nope', '--base-url', server.url, '--api-key-env', 'TEST_LLM_KEY'],
        error: /gpt-5-nope/,
        status: 1,
      },
      {
        args: ['--model', 'openai:gpt-4o', '--api-key-env', 'NO_SUCH_VARIABLE'],
        error: /NO_SUCH_VARIABLE is not set/,
        status: 1,
      },
      { args: ['--agent', 'llm'], error: /--agent llm needs --model/, status: 1 },
      { args: ['--strategy', 'react'], error: /--strategy applies to --agent llm only/, status: 1 },
      {
        args: ['--agent', 'gold', '--model', 'openai:gpt-4o'],
        error: /--model applies to --agent llm only/,
        status: 1,
      },
      {
        args: ['--model', 'openai:gpt-4o', '--temperature', '7'],
        error: /--temperature must be a number from 0 to 2/,
        status: 1,
      },
      {
        args: ['--model', 'openai:gpt-4o', '--provider-option', 'novalue'],
        error: /--provider-option must be key=value/,
        status: 1,
      },
      { args: ['--model', 'openai:gpt-4o', '--strategy', 'guess'], error: /--strategy/, status: 1 },
      {
        args: ['--model', 'openai:no-price-model', '--base-url', server.url, '--max-cost', '1'],
        error: /--max-cost: the model openai:no-price-model has no price/,
        status: 1,
      },
    ];
    for (const { args, error, status, env } of cases) {
      const result = await finished(cli.start([...base, ...args], { env: { TEST_LLM_KEY: KEY, ...env } }));
      expect(result.stderr, args.join(' ')).toMatch(/^intercode: [^\n]+\n$/);
      expect(result.stderr, args.join(' ')).toMatch(error);
      expect(result.status, args.join(' ')).toBe(status);
      expect(existsSync(out), args.join(' ')).toBe(false);
    }
    // Only the check's 1-token probe of the model the endpoint does not list.
    const posts = server.requests.filter((request) => request.method === 'POST');
    expect(posts.map((request) => request.model)).toEqual(['gpt-5-nope']);
  });
});
