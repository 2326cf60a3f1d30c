import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { EpisodeLimits } from '../../../src/agents/llm/strategies/episode-limits.js';
import { NO_PLAN } from '../../../src/agents/llm/strategies/plan-solve-strategy.js';
import { PrefixStore } from '../../../src/agents/llm/strategies/prefix-store.js';
import { REACT_STOP } from '../../../src/agents/llm/strategies/react-strategy.js';
import { envLanguageOf } from '../../../src/agents/llm/strategies/strategy-names.js';
import { NO_TOOL_CALL, ONE_CALL_PER_TURN } from '../../../src/agents/llm/strategies/tools-strategy.js';
import { ModelError } from '../../../src/core/errors.js';
import { it } from '../../support/fixtures.js';
import { drive, task, USAGE } from './in-test-model-client.js';
import { actionOf, agentOf, fenced, lastText, PRICE_PER_INPUT_TOKEN, rolesOf } from './llm-agent-fixture.js';

describe('try-again', () => {
  it('sends the prefix and the query, then the answer and the observation each turn; records each call', async () => {
    const { agent, client, billed } = agentOf([
      { text: fenced('bash', 'ls /data') },
      { text: fenced('bash', 'ls /data | wc -l') },
    ]);
    const turns = await drive(agent.episode(task()), task(), [
      { output: 'a\nb\nc', reward: 0.4 },
      { output: '3' },
    ]);
    expect(turns.map(actionOf)).toEqual([
      { type: 'code', code: 'ls /data' },
      { type: 'code', code: 'ls /data | wc -l' },
    ]);
    const [first, second] = client.requests;
    expect(rolesOf(first)).toEqual(['system', 'user']);
    expect(first!.messages[0]).toMatchObject({ role: 'system', cacheBreakpoint: true });
    expect(lastText(first)).toContain('count the files in /data');
    expect(first!.context).toEqual({ taskId: 't0', turn: 0, strategy: 'try-again', env: 'bash' });
    expect(rolesOf(second)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(lastText(second)).toContain('a\nb\nc');
    expect(lastText(second)).toContain('0.4');
    const call = turns[0]!.llm!.calls[0]!;
    expect(call).toMatchObject({
      output: fenced('bash', 'ls /data'),
      finishReason: 'stop',
      usage: USAGE,
      costUsd: USAGE.input * PRICE_PER_INPUT_TOKEN,
      latencyMs: 3,
      retries: [],
    });
    // Without a prefix store the whole conversation is kept in the call.
    expect(call.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(billed).toEqual([USAGE.input * PRICE_PER_INPUT_TOKEN, USAGE.input * PRICE_PER_INPUT_TOKEN]);
    expect(agent).toMatchObject({ name: 'llm', model: 'test:list-model', strategy: 'try-again' });
    expect(agent.scoreEveryTurn).toBeUndefined();
  });

  it('an answer without runnable code is a format error: no action, the reminder, billed all the same', async () => {
    const refusal = 'I am sorry, I cannot help with that.';
    const { agent, client, billed } = agentOf([{ text: refusal }, { text: fenced('bash', 'ls') }]);
    const turns = await drive(agent.episode(task()), task(), [{ output: '' }, { output: 'x' }]);
    expect(turns[0]!.action).toBeUndefined();
    expect(turns[0]!.text).toBe(refusal);
    expect(turns[0]!.observation).toBeTruthy();
    expect(turns[0]!.llm!.formatError).toBeTruthy();
    expect(billed).toHaveLength(2);
    // The next request tells the model the reminder, nothing else.
    expect(lastText(client.requests[1])).toBe(turns[0]!.observation);
    expect(turns[1]!.action).toEqual({ type: 'code', code: 'ls' });
  });

  it('truncates the observation as the paper did: 1,000 characters, 50 rows', async () => {
    const long = `${'a'.repeat(990)}KEEP${'b'.repeat(600)}LOST${'c'.repeat(600)}`;
    const rows = Array.from({ length: 60 }, (_, row) => `row-${row}`).join('\n');
    const { client, agent } = agentOf([
      { text: fenced('bash', 'cat big') },
      { text: fenced('bash', 'cat rows') },
      { text: fenced('bash', 'true') },
    ]);
    await drive(agent.episode(task()), task(), [{ output: long }, { output: rows }, { output: '' }]);
    expect(lastText(client.requests[1])).toContain('KEEP');
    expect(lastText(client.requests[1])).not.toContain('LOST');
    expect(lastText(client.requests[2])).toContain('row-49');
    expect(lastText(client.requests[2])).not.toContain('row-50');
  });

  it("keeps the opening messages and the paper's dialogue limit of later ones (Bash 7, SQL 5)", async () => {
    for (const [env, limit] of [
      ['bash', 7],
      ['sql', 5],
    ] as const) {
      const answers = Array.from({ length: 10 }, (_, n) => ({ text: fenced(env, `SELECT ${n}`) }));
      const { agent, client } = agentOf(answers, { env });
      await drive(
        agent.episode(task()),
        task(),
        Array.from({ length: 10 }, () => ({ output: 'out' })),
      );
      const last = client.requests.at(-1)!;
      expect(last.messages).toHaveLength(2 + limit);
      expect(last.messages[1]).toMatchObject({ role: 'user' });
      expect((last.messages[1] as { content: string }).content).toContain('count the files in /data');
    }
  });

  it('--handicap: the tables of the task database as a second system message (SQL only)', async () => {
    const sqlTask = task({ meta: { db_tables: { ships: ['id', 'name'], ports: ['code'] } } });
    const { agent, client } = agentOf([{ text: fenced('sql', 'SELECT 1') }], { env: 'sql', handicap: true });
    await drive(agent.episode(sqlTask), sqlTask, [{ output: '1' }]);
    expect(rolesOf(client.requests[0])).toEqual(['system', 'system', 'user']);
    const hint = (client.requests[0]!.messages[1] as { content: string }).content;
    expect(hint).toContain('ships');
    expect(hint).toContain('name');
    const bash = agentOf([{ text: fenced('bash', 'ls') }], { handicap: true });
    await drive(bash.agent.episode(sqlTask), sqlTask, [{ output: '' }]);
    expect(rolesOf(bash.client.requests[0])).toEqual(['system', 'user']);
  });

  it('single: one turn only', async () => {
    const { agent, client } = agentOf([{ text: fenced('bash', 'ls') }], { strategy: 'single' });
    const turns = await drive(agent.episode(task()), task(), [{ output: '' }, { output: '' }], 5);
    expect(turns).toHaveLength(1);
    expect(client.requests).toHaveLength(1);
    expect(client.requests[0]!.context.strategy).toBe('single');
  });

  it('CTF: `submit <flag>` is a submit with the flag', async () => {
    const { agent } = agentOf([{ text: fenced('bash', 'cat flag.txt') }, { text: 'submit picoCTF{d0n3}' }], {
      env: 'ctf',
    });
    const turns = await drive(agent.episode(task()), task(), [{ output: 'picoCTF{d0n3}' }, { output: '' }]);
    expect(turns.map(actionOf)).toEqual([
      { type: 'code', code: 'cat flag.txt' },
      { type: 'submit', answer: 'picoCTF{d0n3}' },
    ]);
  });

  it('Python: a def is the action (the env scores the function it defines)', async () => {
    const code = 'def add(a, b):\n    return a + b';
    const { agent, client } = agentOf([{ text: fenced('python', code) }], { env: 'python' });
    const turns = await drive(agent.episode(task()), task(), [{ output: '' }]);
    expect(turns[0]!.action).toEqual({ type: 'code', code });
    expect(client.requests[0]!.context.env).toBe('python');
  });

  it('an environment without prompts is refused in one line', () => {
    expect(envLanguageOf('sql')).toBe('sql');
    expect(() => envLanguageOf('node-repl')).toThrow(
      /--agent llm has prompts for the bash, sql, python, ctf environments, not for node-repl/,
    );
  });

  it('a model error propagates (the harness records the episode with its error)', async () => {
    const { agent } = agentOf([
      () => {
        throw new ModelError('MODEL_FAILED', 'the model failed after 6 attempts');
      },
    ]);
    await expect(drive(agent.episode(task()), task(), [{ output: '' }])).rejects.toThrow(/failed after 6/);
  });
});

describe('react', () => {
  it('grows one transcript, stops before a made-up observation, and submits on `submit`', async () => {
    const { agent, client } = agentOf(
      [
        { text: 'Thought: list the folder first\nAction: execute[ls /data]' },
        { text: 'Thought: that is all\nAction: submit' },
      ],
      { strategy: 'react' },
    );
    expect(agent.scoreEveryTurn).toBe(false);
    expect(agent.submitAtTurnLimit).toBe(true);
    const long = `${'x'.repeat(340)}KEEP${'y'.repeat(20)}LOST`;
    const turns = await drive(agent.episode(task()), task(), [{ output: long }, { output: '' }]);
    expect(turns.map(actionOf)).toEqual([{ type: 'code', code: 'ls /data' }, { type: 'submit' }]);
    expect(turns[0]!.llm!.thought).toContain('list the folder first');
    expect(client.requests[0]!.stop).toEqual(REACT_STOP);
    expect(rolesOf(client.requests[1])).toEqual(['system', 'user', 'assistant', 'user']);
    // 350 characters of the observation at most.
    expect(lastText(client.requests[1])).toContain('KEEP');
    expect(lastText(client.requests[1])).not.toContain('LOST');
  });

  it('Python: a bare submit names the function defined last', async () => {
    const { agent } = agentOf(
      [
        { text: 'Thought: write it\nAction: execute[def add(a, b):\n    return a + b]' },
        { text: 'Thought: done\nAction: submit' },
      ],
      { strategy: 'react', env: 'python' },
    );
    const turns = await drive(agent.episode(task()), task(), [{ output: '' }, { output: '' }]);
    expect(turns[1]!.action).toEqual({ type: 'submit', answer: 'add' });
  });
});

describe('every environment', () => {
  it('react and tools submit a CTF flag as the answer', async () => {
    const react = agentOf([{ text: 'Thought: found it\nAction: submit picoCTF{r3act}' }], {
      strategy: 'react',
      env: 'ctf',
    });
    const reactTurns = await drive(react.agent.episode(task()), task(), [{ output: '' }]);
    expect(reactTurns[0]!.action).toEqual({ type: 'submit', answer: 'picoCTF{r3act}' });
    const tools = agentOf(
      [
        {
          toolCalls: [
            {
              id: 'c1',
              name: 'submit',
              arguments: { answer: 'picoCTF{t00l}' },
              argumentsText: '{"answer":"picoCTF{t00l}"}',
            },
          ],
        },
      ],
      { strategy: 'tools', env: 'ctf' },
    );
    const toolTurns = await drive(tools.agent.episode(task()), task(), [{ output: '' }]);
    expect(toolTurns[0]!.action).toEqual({ type: 'submit', answer: 'picoCTF{t00l}' });
  });

  it('each strategy asks every environment with its own prompt set and request context', async () => {
    for (const env of ['bash', 'sql', 'python', 'ctf'] as const) {
      for (const strategy of ['single', 'try-again', 'react', 'plan-solve', 'tools'] as const) {
        const { agent, client } = agentOf([{ text: 'no idea' }], { env, strategy });
        const turns = await drive(agent.episode(task()), task(), [{ output: '' }], 1);
        expect(turns[0]!.action, `${env} ${strategy}`).toBeUndefined();
        expect(turns[0]!.llm!.formatError, `${env} ${strategy}`).toBeTruthy();
        expect(client.requests[0]!.context).toMatchObject({ env, strategy, turn: 0 });
        expect(client.requests[0]!.messages[0]).toMatchObject({ role: 'system', cacheBreakpoint: true });
        expect(Boolean(client.requests[0]!.tools), `${env} ${strategy}`).toBe(strategy === 'tools');
      }
    }
  });
});

describe('plan-solve', () => {
  it('asks for a plan, then one step per turn, and ends after the last step', async () => {
    const { agent, client } = agentOf(
      [
        { text: '1. Find the files.\n2. Count them.' },
        { text: fenced('bash', 'find /data -type f') },
        { text: fenced('bash', 'find /data -type f | wc -l') },
      ],
      { strategy: 'plan-solve' },
    );
    const turns = await drive(agent.episode(task()), task(), [{ output: '/data/a' }, { output: '1' }], 5);
    expect(turns).toHaveLength(2);
    expect(turns[0]!.llm!.calls).toHaveLength(2);
    expect(turns[0]!.llm!.step).toContain('Find the files');
    expect(turns[1]!.llm!.step).toContain('Count them');
    expect(client.requests.map((request) => request.context.purpose)).toEqual(['plan', 'step', 'step']);
    expect(lastText(client.requests[2])).toContain('/data/a');
    expect(lastText(client.requests[2])).toContain('Count them');
  });

  it('a plan without numbered steps is a format error, and the next turn asks again', async () => {
    const { agent, client } = agentOf(
      [
        { text: 'I would look around.' },
        { text: '1. Count the files.' },
        { text: fenced('bash', 'ls | wc -l') },
      ],
      { strategy: 'plan-solve' },
    );
    const turns = await drive(agent.episode(task()), task(), [{ output: '' }, { output: '4' }], 3);
    expect(turns[0]!.action).toBeUndefined();
    expect(turns[0]!.llm!.formatError).toBe(NO_PLAN);
    expect(turns[1]!.action).toEqual({ type: 'code', code: 'ls | wc -l' });
    expect(client.requests.map((request) => request.context.purpose)).toEqual(['plan', 'plan', 'step']);
  });
});

describe('tools', () => {
  it('the first tool call is the action; its output comes back as the tool result', async () => {
    const { agent, client } = agentOf(
      [
        {
          toolCalls: [
            { id: 'c1', name: 'execute', arguments: { code: 'ls' }, argumentsText: '{"code":"ls"}' },
            { id: 'c2', name: 'execute', arguments: { code: 'pwd' }, argumentsText: '{"code":"pwd"}' },
          ],
          finishReason: 'tool-calls',
        },
        { toolCalls: [{ id: 'c3', name: 'submit', arguments: {}, argumentsText: '{}' }] },
      ],
      { strategy: 'tools' },
    );
    const turns = await drive(agent.episode(task()), task(), [{ output: 'a b' }, { output: '' }]);
    expect(turns.map(actionOf)).toEqual([{ type: 'code', code: 'ls' }, { type: 'submit' }]);
    expect(client.requests[0]!.tools?.map((tool) => tool.name).sort()).toEqual(['execute', 'submit']);
    const second = client.requests[1]!;
    expect(rolesOf(second)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
    expect(second.messages[3]).toMatchObject({ role: 'tool', toolCallId: 'c1', content: 'a b' });
    expect(second.messages[4]).toMatchObject({ role: 'tool', toolCallId: 'c2', content: ONE_CALL_PER_TURN });
    expect(turns[0]!.llm!.calls[0]!.toolCalls).toHaveLength(2);
    expect(agent.scoreEveryTurn).toBe(false);
  });

  it('bad arguments and answers without a tool call are format errors', async () => {
    const { agent, client } = agentOf(
      [
        { toolCalls: [{ id: 'c1', name: 'execute', arguments: undefined, argumentsText: '{"code": ls' }] },
        { text: 'I think you should run ls.' },
        {
          toolCalls: [
            { id: 'c2', name: 'execute', arguments: { code: 'ls' }, argumentsText: '{"code":"ls"}' },
          ],
        },
      ],
      { strategy: 'tools' },
    );
    const turns = await drive(agent.episode(task()), task(), [
      { output: '' },
      { output: '' },
      { output: 'ok' },
    ]);
    expect(turns[0]!.action).toBeUndefined();
    expect(turns[0]!.llm!.formatError).toBeTruthy();
    expect(turns[1]!.llm!.formatError).toBe(NO_TOOL_CALL);
    expect(turns[2]!.action).toEqual({ type: 'code', code: 'ls' });
    // The bad call still gets a result (the reminder); the answer without a call gets a user message.
    expect(client.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c1' });
    expect(client.requests[2]!.messages.at(-1)).toMatchObject({ role: 'user' });
  });
});

describe('limits and run files', () => {
  it('--max-episode-tokens ends the episode with a stop before the next call', async () => {
    const answers = Array.from({ length: 5 }, () => ({ text: fenced('bash', 'ls') }));
    const { agent, client } = agentOf(answers, { limits: { maxTokens: 2 * (USAGE.input + USAGE.output) } });
    const turns = await drive(
      agent.episode(task()),
      task(),
      Array.from({ length: 5 }, () => ({ output: '' })),
    );
    expect(turns.at(-1)).toEqual({ stop: 'tokens' });
    expect(client.requests).toHaveLength(2);
  });

  it('the time limit counts from the first turn', () => {
    let now = 1_000;
    const limits = new EpisodeLimits({ maxSeconds: 2 }, () => now);
    now = 50_000;
    limits.start();
    expect(limits.reached()).toBeUndefined();
    now += 1_999;
    expect(limits.reached()).toBeUndefined();
    now += 1;
    expect(limits.reached()).toBe('time');
  });

  it('the shared prefix is stored once per run in prefixes.json and named by every call', async ({
    tempDir,
  }) => {
    const dir = tempDir('prefixes');
    const prefixes = new PrefixStore(dir);
    const answers = Array.from({ length: 4 }, () => ({ text: fenced('bash', 'ls') }));
    const { agent } = agentOf(answers, { prefixes });
    const first = await drive(agent.episode(task()), task(), [{ output: '' }, { output: '' }]);
    const other = task({ id: 't1', index: 1, query: 'list /tmp' });
    const second = await drive(agent.episode(other), other, [{ output: '' }, { output: '' }]);
    const names = [...first, ...second].map((turn) => turn.llm!.calls[0]!.prefix);
    expect(new Set(names).size).toBe(1);
    const stored = JSON.parse(readFileSync(join(dir, 'prefixes.json'), 'utf8')) as Record<string, unknown[]>;
    expect(Object.keys(stored)).toEqual([names[0]]);
    expect(stored[names[0]!]).toEqual([expect.objectContaining({ role: 'system', cacheBreakpoint: true })]);
    // The calls keep only what follows the prefix.
    expect(first[1]!.llm!.calls[0]!.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
    // A resumed run's store knows the prefixes already written.
    const reopened = new PrefixStore(dir);
    expect(reopened.get(names[0]!)).toEqual(stored[names[0]!]);
  });
});
