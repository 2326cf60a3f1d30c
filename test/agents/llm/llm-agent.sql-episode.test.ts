import { afterAll, describe, expect } from 'vitest';
import { LlmAgent, type LlmAgentOptions } from '../../../src/agents/llm/llm-agent.js';
import type { Dataset, Task } from '../../../src/core/task.js';
import { demoSqlDataset } from '../../../src/datasets/demo/demo-sql.js';
import { DEMO_SQL_DUMP } from '../../../src/datasets/demo/demo-sql-dump.js';
import { SqlEnv } from '../../../src/envs/sql/sql-env.js';
import { playEpisode } from '../../../src/harness/play-episode.js';
import { parseMysqlDump } from '../../../src/sql/dump/parse-mysql-dump.js';
import { SqliteEngine } from '../../../src/sql/engine/sqlite/sqlite-engine.js';
import { it } from '../../support/fixtures.js';
import { type Answer, ListModelClient } from './in-test-model-client.js';

// The language-model agent's turns played by the real harness loop on the real SQL env (SQLite,
// demo/sql): scoring every turn, stopping at reward 1, format reminders, limits, the forced submit.
let dataset: Dataset;
let engine: SqliteEngine;
let env: SqlEnv;

it.beforeAll(async ({ cache }) => {
  dataset = await demoSqlDataset().load();
  engine = new SqliteEngine({ cacheDir: cache });
  await engine.prepare(parseMysqlDump(DEMO_SQL_DUMP));
  env = new SqlEnv({ dataset, engine });
});

afterAll(async () => {
  await env?.close();
  await engine?.close();
});

const sql = (query: string) => `\`\`\`sql\n${query}\n\`\`\``;

async function play(task: Task, answers: readonly Answer[], options: Partial<LlmAgentOptions> = {}) {
  const client = new ListModelClient(answers);
  const agent = new LlmAgent({ client, env: 'sql', strategy: 'try-again', ...options });
  const policy = agent.episode(task);
  try {
    const record = await playEpisode(env, task, policy, {
      maxTurns: 4,
      scoreEveryTurn: agent.scoreEveryTurn ?? true,
      ...(agent.submitAtTurnLimit ? { submitAtTurnLimit: true } : {}),
      dataset: dataset.id,
    });
    return { record, client };
  } finally {
    await policy.close?.();
  }
}

describe('LlmAgent in the harness loop on SQLite', () => {
  it('try-again: a refusal (reminder, inadmissible), a wrong query, then the gold ends the episode', async () => {
    const task = dataset.tasks[0]!;
    const { record, client } = await play(task, [
      { text: 'I cannot help with databases.' },
      { text: sql('SELECT 1') },
      { text: sql(String(task.gold)) },
      { text: sql('SELECT 2') },
    ]);
    expect(record.turns.map((turn) => turn.admissible)).toEqual([false, true, true]);
    expect(record.turns.map((turn) => turn.reward)).toEqual([0, expect.any(Number), 1]);
    expect(record.turns[0]!.llm!.formatError).toBeTruthy();
    expect(record.turns[0]!.action).toBe('I cannot help with databases.');
    expect(record).toMatchObject({ success: true, terminated: true, truncated: false, turnsTaken: 3 });
    expect(record.usage?.input).toBe(300);
    expect(client.requests).toHaveLength(3);
  });

  it('react: executes without scoring, and the harness submits when the turns run out', async () => {
    const task = dataset.tasks[1]!;
    const answers = Array.from({ length: 4 }, () => ({
      text: `Thought: try it\nAction: execute[${String(task.gold)}]`,
    }));
    const { record } = await play(task, answers, { strategy: 'react' });
    expect(record.turns.map((turn) => turn.action)).toEqual([...Array(4).fill(String(task.gold)), 'submit']);
    expect(record.turns.slice(0, 4).every((turn) => turn.reward === 0)).toBe(true);
    expect(record.turns[4]!.reward).toBe(1);
    expect(record.success).toBe(true);
  });

  it('--max-episode-tokens ends the episode as truncated by tokens', async () => {
    const task = dataset.tasks[2]!;
    const answers = Array.from({ length: 4 }, () => ({ text: sql('SELECT 1') }));
    const { record, client } = await play(task, answers, { limits: { maxTokens: 200 } });
    expect(client.requests).toHaveLength(2);
    expect(record).toMatchObject({ truncated: true, truncatedBy: 'tokens', turnsTaken: 2 });
  });
});
