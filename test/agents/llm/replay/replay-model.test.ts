import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createModelClient } from '../../../../src/agents/llm/create-model-client.js';
import type { ModelRequest, RequestContext } from '../../../../src/agents/llm/model-client.js';
import { parseModelSpec } from '../../../../src/agents/llm/model-spec.js';
import { createReplayModel, ReplayModel } from '../../../../src/agents/llm/replay/replay-model.js';
import { ModelError, UsageError } from '../../../../src/core/errors.js';

// Small recordings cut from real upstream results (data/results: gpt-4 Try Again SQL, gpt-3.5 ReAct
// and Plan & Solve SQL, gpt-4 Try Again Bash on fs 1, the human SQL trajectories) and an
// episodes.jsonl of this project, replayed through the model the way the strategies call it.
const FIXTURES = join(import.meta.dirname, 'fixtures');
const fixture = (name: string): string => join(FIXTURES, name);

function upstream(name: string): Record<string, Record<string, unknown>> {
  const data = JSON.parse(readFileSync(fixture(name), 'utf8')) as Record<string, unknown>;
  return ((data.logs as Record<string, unknown> | undefined) ?? data) as Record<
    string,
    Record<string, unknown>
  >;
}

function request(
  context: Partial<RequestContext> & { taskId: string; turn: number },
  query: string,
  stop?: string[],
): ModelRequest {
  return {
    messages: [
      { role: 'system', content: 'You answer with code.' },
      { role: 'user', content: `The task: ${query}` },
    ],
    context: { strategy: 'try-again', env: 'sql', ...context },
    ...(stop ? { stop } : {}),
  };
}

describe('ReplayModel on upstream Try Again recordings', () => {
  const file = fixture('sql-gpt-4-try-again.json');
  const entries = upstream('sql-gpt-4-try-again.json');

  it('answers each turn with the recorded action in a fenced SQL block, at no cost', async () => {
    const model = createReplayModel(`replay:${file}`);
    expect(model.id).toBe(`replay:${file}`);
    const entry = entries['1']!;
    const actions = (entry.turn_history as { actions: string[] }).actions;
    for (const [turn, action] of actions.entries()) {
      const response = await model.complete(request({ taskId: '1', turn }, entry.query as string));
      expect(response.text).toBe(`\`\`\`sql\n${action}\n\`\`\``);
      expect(response.usage).toEqual({ input: 0, output: 0, cachedInput: 0, cacheWrite: 0, reasoning: 0 });
      expect(response.modelId).toBe('sql-gpt-4-try-again.json');
      expect(response.toolCalls).toEqual([]);
      expect(response.retries).toEqual([]);
    }
  });

  it('is the replay provider of createModelClient (--model replay:<file>), no key or endpoint needed', async () => {
    const model = createModelClient(parseModelSpec(`replay:${file}`), { env: {} });
    expect(model.provider).toBe('replay');
    await model.check?.();
    const entry = entries['1']!;
    const response = await model.complete(request({ taskId: '1', turn: 0 }, entry.query as string));
    expect(response.text).toBe(
      `\`\`\`sql\n${(entry.turn_history as { actions: string[] }).actions[0]}\n\`\`\``,
    );
  });

  it('writes an answer the original did not take as code unfenced, exactly as recorded', async () => {
    const model = createReplayModel(file);
    const entry = entries['51']!;
    // Turn 2 of task 51 got the original's format reminder (`USE world_1;` is not a query there);
    // turn 5 ran and failed, which is still code.
    const history = entry.turn_history as { actions: string[] };
    const notCode = await model.complete(request({ taskId: '51', turn: 2 }, entry.query as string));
    expect(notCode.text).toBe('USE world_1;');
    const failed = await model.complete(request({ taskId: '51', turn: 5 }, entry.query as string));
    expect(failed.text).toBe(`\`\`\`sql\n${history.actions[5]}\n\`\`\``);
  });

  it('ends a task whose recording has no more turns: submit where every turn is scored, else skip', async () => {
    const model = createReplayModel(file);
    const entry = entries['0']!;
    const turns = (entry.turn_history as { actions: string[] }).actions.length;
    const ask = (strategy: string, env = 'sql') =>
      model.complete(request({ taskId: '0', turn: turns, strategy, env }, entry.query as string));
    expect((await ask('try-again')).text).toBe('submit');
    expect((await ask('try-again', 'bash')).text).toBe('submit');
    expect((await ask('try-again', 'ctf')).text).toBe('skip');
    // A Try Again recording replayed in ReAct ends with a submit too; a ReAct recording that ended
    // without one (below) ends with skip.
    expect((await ask('react')).text).toBe('Thought: The recording ends here.\nAction: submit');
    expect((await ask('tools')).toolCalls.map((call) => call.name)).toEqual(['submit']);
  });

  it('finds a task recorded under another key by its query in the messages', async () => {
    const model = createReplayModel(file);
    const entry = entries['1']!;
    const response = await model.complete(
      request({ taskId: 'spider/1-moved', turn: 0 }, entry.query as string),
    );
    const first = (entry.turn_history as { actions: string[] }).actions[0]!;
    expect(response.text).toBe(`\`\`\`sql\n${first}\n\`\`\``);
  });

  it('fails with a ModelError naming a task the file does not hold', async () => {
    const model = createReplayModel(file);
    const error = await model
      .complete(request({ taskId: '999', turn: 0 }, 'A question nobody recorded'))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).code).toBe('MODEL_REJECTED');
    expect((error as ModelError).message).toContain('task 999');
  });

  it('tells which tasks it holds: by id and query, by query alone, by id alone (a reworded query)', () => {
    const model = new ReplayModel(file);
    const query = entries['51']!.query as string;
    expect(model.has('51', query)).toBe(true);
    expect(model.has('elsewhere', query)).toBe(true);
    expect(model.has('51', 'another question')).toBe(true);
    expect(model.has('999', 'another question')).toBe(false);
  });

  it('cuts its answer at the request stop sequences, as a provider does', async () => {
    const model = createReplayModel(file);
    const entry = entries['1']!;
    const response = await model.complete(
      request({ taskId: '1', turn: 0 }, entry.query as string, ['\n```']),
    );
    expect(response.text).toBe(`\`\`\`sql\n${(entry.turn_history as { actions: string[] }).actions[0]}`);
  });

  it('refuses a missing or unreadable file with a one-line UsageError before any request', () => {
    expect(() => createReplayModel('replay:')).toThrow(UsageError);
    const missing = (() => {
      try {
        createReplayModel(fixture('no-such-file.json'));
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(missing).toBeInstanceOf(UsageError);
    expect((missing as Error).message).toContain('no-such-file.json');
    expect((missing as Error).message).not.toContain('\n');
  });
});

describe('ReplayModel in the other strategies', () => {
  it('react: the recorded thought and action, a format slip kept as the model wrote it', async () => {
    const entries = upstream('sql-gpt-3.5-react.json');
    const model = createReplayModel(fixture('sql-gpt-3.5-react.json'));
    const entry = entries['11']!;
    const history = entry.turn_history as { thoughts: string[]; actions: string[] };
    const ask = (turn: number) =>
      model.complete(request({ taskId: '11', turn, strategy: 'react' }, entry.query as string));
    expect((await ask(0)).text).toBe(`Thought: ${history.thoughts[0]}\nAction: ${history.actions[0]}`);
    // Turn 2: the original model wrote its own observation where the action belongs.
    expect((await ask(2)).text).toBe(`Thought: ${history.thoughts[2]}\nAction: ${history.actions[2]}`);
    expect((await ask(6)).text).toBe(`Thought: ${history.thoughts[6]}\nAction: submit`);
    expect((await ask(7)).text).toBe('Thought: The recording ends here.\nAction: skip');
  });

  it('plan-solve: the recorded plan numbered, then each step as a fenced block', async () => {
    const entries = upstream('sql-gpt-3.5-plan-solve.json');
    const model = createReplayModel(fixture('sql-gpt-3.5-plan-solve.json'));
    const entry = entries['857']!;
    const history = entry.turn_history as { steps: string[]; actions: string[] };
    const query = entry.query as string;
    const plan = await model.complete(
      request({ taskId: '857', turn: 0, strategy: 'plan-solve', purpose: 'plan' }, query),
    );
    expect(plan.text).toBe(history.steps.map((step, index) => `${index + 1}. ${step}`).join('\n'));
    const step = await model.complete(
      request({ taskId: '857', turn: 1, strategy: 'plan-solve', purpose: 'step' }, query),
    );
    expect(step.text).toBe(`\`\`\`sql\n${history.actions[1]}\n\`\`\``);
    // The last step's answer was prose the original did not run.
    const last = await model.complete(
      request({ taskId: '857', turn: 4, strategy: 'plan-solve', purpose: 'step' }, query),
    );
    expect(last.text).toBe(history.actions[4]);
  });

  it('plan-solve from our episodes.jsonl: a plan without steps as recorded, then the plan taken', async () => {
    const model = createReplayModel(fixture('plan-solve-episodes.jsonl'));
    const ask = (taskId: string, turn: number, purpose: string, query: string) =>
      model.complete(request({ taskId, turn, strategy: 'plan-solve', purpose }, query));
    const query = 'Which ship is the oldest?';
    expect((await ask('7', 0, 'plan', query)).text).toBe('I would start by looking at the tables.');
    expect((await ask('7', 1, 'plan', query)).text).toBe(
      '1. List the tables.\n2. Order the ships by the year built and take the first.',
    );
    expect((await ask('7', 1, 'step', query)).text).toBe('```sql\nSHOW TABLES\n```');
    expect((await ask('7', 2, 'step', query)).text).toBe(
      '```sql\nSELECT name FROM ship ORDER BY built LIMIT 1\n```',
    );
    // A task whose plans never had steps: each request gets the answer recorded for its turn.
    expect((await ask('8', 0, 'plan', 'How many ports are there?')).text).toBe('Count them.');
  });

  it('plan-solve on a recording without a plan is a ModelError naming the task', async () => {
    const model = createReplayModel(fixture('sql-gpt-4-try-again.json'));
    const query = upstream('sql-gpt-4-try-again.json')['1']!.query as string;
    await expect(
      model.complete(request({ taskId: '1', turn: 0, strategy: 'plan-solve', purpose: 'plan' }, query)),
    ).rejects.toThrow(/task 1 has no recorded plan/);
  });

  it('tools: an execute tool call with the code, a submit call for submit', async () => {
    const entries = upstream('sql-gpt-3.5-react.json');
    const model = createReplayModel(fixture('sql-gpt-3.5-react.json'));
    const entry = entries['1']!;
    const query = entry.query as string;
    const first = await model.complete(request({ taskId: '1', turn: 0, strategy: 'tools' }, query));
    expect(first.finishReason).toBe('tool-calls');
    expect(first.toolCalls).toEqual([
      {
        id: 'replay-0',
        name: 'execute',
        arguments: { code: 'SHOW TABLES' },
        argumentsText: '{"code":"SHOW TABLES"}',
      },
    ]);
    const last = await model.complete(request({ taskId: '1', turn: 4, strategy: 'tools' }, query));
    expect(last.toolCalls.map((call) => call.name)).toEqual(['submit']);
  });

  it('bash: fenced bash blocks from the recorded commands', async () => {
    const entries = upstream('bash-gpt-4-fs-1-try-again.json');
    const model = createReplayModel(fixture('bash-gpt-4-fs-1-try-again.json'));
    const entry = entries['0']!;
    const response = await model.complete(
      request({ taskId: '0', turn: 1, env: 'bash' }, entry.query as string),
    );
    const action = (entry.turn_history as { actions: string[] }).actions[1]!;
    expect(response.text).toBe(`\`\`\`bash\n${action}\n\`\`\``);
  });

  it("the env's own trajectory format (the human SQL runs)", async () => {
    const data = JSON.parse(readFileSync(fixture('sql-human-trajectory.json'), 'utf8')) as Record<
      string,
      { query: string; trajectory: { action: string }[] }
    >;
    const model = createReplayModel(fixture('sql-human-trajectory.json'));
    const entry = data['953']!;
    const response = await model.complete(request({ taskId: '953', turn: 1 }, entry.query));
    expect(response.text).toBe(`\`\`\`sql\n${entry.trajectory[1]!.action}\n\`\`\``);
  });

  it('our episodes.jsonl: thoughts, format errors and submit as recorded', async () => {
    const model = createReplayModel(fixture('episodes.jsonl'));
    const query = 'How many ships are there?';
    const ask = (turn: number, strategy: string) =>
      model.complete(request({ taskId: '3', turn, strategy }, query));
    expect((await ask(0, 'react')).text).toBe(
      'Thought: I should see which tables exist.\nAction: execute[SHOW TABLES]',
    );
    expect((await ask(1, 'react')).text).toBe(
      'Thought: Maybe ask.\nAction: I cannot tell without more information.',
    );
    expect((await ask(1, 'try-again')).text).toBe('I cannot tell without more information.');
    expect((await ask(2, 'try-again')).text).toBe('```sql\nSELECT count(*) FROM ship\n```');
    expect((await ask(3, 'try-again')).text).toBe('submit');
    expect((await ask(4, 'try-again')).text).toBe('submit');
  });
});
