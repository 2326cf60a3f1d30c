/**
 * What the tests of `intercode run --agent llm` share: the episode fields they read, a script that
 * answers each task with its gold after one wrong answer, and the options of a run against a
 * scripted model server.
 */
import { join } from 'node:path';
import type { Task } from '../../../src/core/task.js';
import type { RecordedLlmRequest, ScriptedLlmServer, ScriptStep } from '../../../src/testkit/index.js';
import type { CliResult } from '../../support/cli-runner.js';
import { jsonLines } from '../../support/json-lines.js';

/** A model call as an episode's turn records it. */
export interface LlmCall {
  prefix?: string;
  messages: { role: string; content: string }[];
  output: string;
  costUsd: number | null;
  cached?: boolean;
}
/** The fields of an `episodes.jsonl` line these tests read. */
export interface Episode {
  taskId: string;
  turns: {
    action: string;
    observation: string;
    reward: number;
    admissible: boolean;
    llm?: { calls: LlmCall[]; formatError?: string };
  }[];
  success: boolean;
  usage?: { input: number; output: number };
  error?: string;
}

/** The episodes of a run directory. */
export const episodesOf = (dir: string) => jsonLines<Episode>(join(dir, 'episodes.jsonl'));
/** A request's messages as JSON text. */
export const userText = (request: RecordedLlmRequest): string =>
  JSON.stringify((request.body as { messages?: unknown }).messages ?? '');

/** Answers a task's first request with a wrong answer, and later ones with its gold, fenced. */
export function goldScript(tasks: readonly Task[], language: string, wrong: string, delayMs = 0) {
  return (request: RecordedLlmRequest): ScriptStep => {
    const text = userText(request);
    const task = [...tasks]
      .reverse()
      .find((candidate) => text.includes(JSON.stringify(candidate.query).slice(1, -1)));
    if (task === undefined) return { status: 400, errorMessage: 'no task in the request' };
    const answered = ((request.body as { messages: unknown[] }).messages ?? []).some(
      (message) => (message as { role: string }).role === 'assistant',
    );
    const code = answered ? String(task.gold) : wrong;
    return {
      text: `Let me try.\n\`\`\`${language}\n${code}\n\`\`\``,
      usage: { input: 200, output: 30 },
      delayMs,
    };
  };
}

/** The CLI options that point a run of `model` at `server`, writing into `out`. */
export const llmArgs = (server: ScriptedLlmServer, out: string, model = 'openai:gpt-4o') => [
  '--model',
  model,
  '--base-url',
  server.url,
  '--api-key-env',
  'TEST_LLM_KEY',
  '--out',
  out,
];

/** The CLI's result once it has ended. */
export async function finished(started: { done: Promise<CliResult> }): Promise<CliResult> {
  return started.done;
}
