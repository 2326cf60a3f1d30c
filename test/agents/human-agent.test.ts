import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { TurnContext } from '../../src/agents/agent.js';
import { HumanAgent } from '../../src/agents/human-agent.js';
import type { Task } from '../../src/core/task.js';

const task: Task = { id: 'count', index: 0, query: 'How many files?', group: 'search', meta: {} };

function context(turn: number, text: string): TurnContext {
  return { task, turn, history: [], observation: { text, durationMs: 0 }, reward: 0 };
}

function terminal(input: string): { agent: HumanAgent; shown: () => string } {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let shown = '';
  stdout.on('data', (chunk: Buffer) => {
    shown += chunk.toString();
  });
  stdin.end(input);
  return { agent: new HumanAgent(stdin, stdout), shown: () => shown };
}

describe('HumanAgent', () => {
  it('shows the task, then each observation, and reads one action per line', async () => {
    const { agent, shown } = terminal('ls /demo\n\n   \nsubmit\n');
    const policy = agent.episode(task);
    expect(await policy.act(context(0, task.query))).toBe('ls /demo');
    expect(shown()).toContain('Task count (search):\nHow many files?\n');
    expect(await policy.act(context(1, ''))).toBe('submit');
    expect(shown()).toContain('(no output)\n');
    expect(await policy.act(context(2, 'a\nb'))).toBeUndefined();
    expect(shown()).toContain('a\nb\n');
    agent.close();
  });

  it('joins lines ending in a backslash, and keeps an unfinished action at end of input', async () => {
    const { agent } = terminal('for f in a b; do \\\necho $f; done\necho tail \\\n');
    const policy = agent.episode(task);
    expect(await policy.act(context(0, task.query))).toBe('for f in a b; do \necho $f; done');
    expect(await policy.act(context(1, 'a\nb\n'))).toBe('echo tail ');
    expect(await policy.act(context(2, ''))).toBeUndefined();
    agent.close();
  });
});
