import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EpisodeRecord } from '../../src/harness/episode-record.js';
import { episodeLine } from '../../src/harness/episode-record.js';
import { summarize } from '../../src/harness/run-summary.js';

type Turn = EpisodeRecord['turns'][number];

const usage = (input: number, cachedInput: number, output: number, reasoning = 0) => ({
  input,
  output,
  cachedInput,
  cacheWrite: 0,
  reasoning,
});

/** A turn of a language-model agent: one model call that answered `action`. */
export function llmTurn(action: string, reward: number, admissible: boolean, costUsd: number | null): Turn {
  return {
    action,
    observation: admissible ? `[(${reward},)]` : 'no such table',
    reward,
    admissible,
    durationMs: 5,
    llm: {
      calls: [
        {
          prefix: 'p1',
          messages: [{ role: 'user', content: 'Task: count the singers' }],
          output: `\`\`\`sql\n${action}\n\`\`\``,
          reasoning: 'The singer table holds them.',
          finishReason: 'stop',
          usage: usage(100, 60, 20, 5),
          costUsd,
          latencyMs: 42,
          retries: [{ attempt: 1, reason: '429', waitMs: 10 }],
        },
      ],
    },
  };
}

/** An SQL episode of an LLM run: its turns, rewards and the tokens and cost they add up to. */
export function sqlEpisode(
  taskId: string,
  group: string,
  turns: Turn[],
  extra: Partial<EpisodeRecord> = {},
): EpisodeRecord {
  const maxReward = turns.length > 0 ? Math.max(...turns.map((t) => t.reward)) : 0;
  const calls = turns.flatMap((t) => t.llm?.calls ?? []);
  const costs = calls.map((c) => c.costUsd);
  return {
    taskId,
    index: Number(taskId.replace(/\D/g, '') || 0),
    dataset: 'spider/dev',
    query: `Question ${taskId}`,
    gold: 'SELECT count(*) FROM singer',
    turns,
    reward: turns.at(-1)?.reward ?? 0,
    maxReward,
    success: maxReward === 1,
    turnsTaken: turns.length,
    terminated: maxReward === 1,
    truncated: false,
    group,
    ...(calls.length > 0
      ? {
          usage: calls
            .map((c) => c.usage)
            .reduce((a, b) => ({
              input: a.input + b.input,
              output: a.output + b.output,
              cachedInput: a.cachedInput + b.cachedInput,
              cacheWrite: a.cacheWrite + b.cacheWrite,
              reasoning: a.reasoning + b.reasoning,
            })),
          costUsd: costs.includes(null) ? null : costs.reduce<number>((a, b) => a + (b ?? 0), 0),
        }
      : {}),
    durationMs: 20,
    ...extra,
  };
}

/** The upstream gpt-4 Try Again file as `--model replay:` names it. */
export const GPT4_SQL_FILE = '/mirror/data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json';

/**
 * Episodes of a replayed gpt-4 Try Again run on Spider: 4 played (3 solved, one on its first turn,
 * one inadmissible turn), one failed for good (the endpoint went away).
 */
export function gpt4Episodes(): EpisodeRecord[] {
  return [
    sqlEpisode('0', 'easy', [llmTurn('SELECT count(*) FROM singer', 1, true, 0.01)]),
    sqlEpisode('1', 'easy', [
      llmTurn('SELECT * FROM nope', 0, false, 0.01),
      llmTurn('SELECT 1', 1, true, 0.01),
    ]),
    sqlEpisode('2', 'hard', [llmTurn('SELECT 2', 0.5, true, 0.01), llmTurn('SELECT 3', 1, true, 0.01)]),
    sqlEpisode('3', 'hard', [llmTurn('SELECT 4', 0, true, 0.01)]),
    sqlEpisode('4', 'hard', [], { error: 'model endpoint: connection refused (after 4 attempts)' }),
  ];
}

/** Writes a run directory: `episodes.jsonl`, and `summary.json` as `intercode run` writes it. */
export function writeRun(
  directory: string,
  episodes: readonly EpisodeRecord[],
  description: Parameters<typeof summarize>[0] | undefined,
  prefixes?: Record<string, unknown>,
): string {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'episodes.jsonl'), episodes.map(episodeLine).join(''));
  if (description) {
    const summary = summarize(description, episodes, 100, true);
    writeFileSync(join(directory, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  }
  if (prefixes) writeFileSync(join(directory, 'prefixes.json'), `${JSON.stringify(prefixes, null, 2)}\n`);
  return directory;
}

/** The setting of the replayed gpt-4 run. */
export const GPT4_DESCRIPTION = {
  dataset: 'spider/dev',
  env: 'sql',
  agent: 'llm',
  model: `replay:${GPT4_SQL_FILE}`,
  strategy: 'try-again',
  engine: 'mysql',
  maxTurns: 10,
};

/** The shared prompt prefix the calls above name (`p1`). */
export const PREFIXES = {
  p1: [
    {
      role: 'system',
      content: 'You write one MySQL query per answer, in a sql code block.',
      cacheBreakpoint: true,
    },
  ],
};
