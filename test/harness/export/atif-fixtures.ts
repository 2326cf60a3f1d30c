import type { ChatMessageData, ModelCallRecord } from '../../../src/core/run-files/episode-record-schema.js';
import type { EpisodeRecord } from '../../../src/harness/episode-record.js';

const SYSTEM: ChatMessageData = {
  role: 'system',
  content: 'Answer with one bash command in a code block.',
  cacheBreakpoint: true,
};
const QUERY: ChatMessageData = { role: 'user', content: 'Count the files under /testbed.' };

/** The run's `prefixes.json`: the system prompt, stored once. */
export const PREFIXES = { a1b2c3: [SYSTEM] };

function call(
  messages: ChatMessageData[],
  output: string,
  extra: Partial<ModelCallRecord> = {},
): ModelCallRecord {
  return {
    prefix: 'a1b2c3',
    messages,
    output,
    finishReason: 'stop',
    usage: { input: 120, output: 30, cachedInput: 100, cacheWrite: 0, reasoning: 8 },
    costUsd: 0.002,
    latencyMs: 350,
    retries: [],
    ...extra,
  };
}

/**
 * A Try Again episode of a language model on NL2Bash: a refusal (format reminder, nothing ran), a
 * failing command, then the right one; the second call waited out a rate limit.
 */
export function tryAgainEpisode(): EpisodeRecord {
  const reminder = 'Your answer held no bash code block. Reply with one command in a ```bash block.';
  const turn1: ChatMessageData[] = [QUERY];
  const turn2: ChatMessageData[] = [
    ...turn1,
    { role: 'assistant', content: 'I cannot help with that.' },
    { role: 'user', content: reminder },
  ];
  const turn3: ChatMessageData[] = [
    ...turn2,
    { role: 'assistant', content: '```bash\nls /testbd | wc -l\n```' },
    { role: 'user', content: 'Output: ls: cannot access /testbd\nReward: 0.01' },
  ];
  return {
    taskId: 'fs1/3',
    index: 3,
    dataset: 'nl2bash',
    query: QUERY.content,
    gold: 'find /testbed -type f | wc -l',
    turns: [
      {
        action: 'I cannot help with that.',
        observation: reminder,
        reward: 0,
        admissible: false,
        durationMs: 1,
        llm: {
          calls: [call(turn1, 'I cannot help with that.', { reasoning: 'Unsure.' })],
          formatError: 'no code block',
        },
      },
      {
        action: 'ls /testbd | wc -l',
        observation: 'ls: cannot access /testbd',
        reward: 0.01,
        admissible: false,
        durationMs: 30,
        llm: {
          calls: [
            call(turn2, '```bash\nls /testbd | wc -l\n```', {
              retries: [{ attempt: 1, reason: '429', waitMs: 1000 }],
            }),
          ],
        },
      },
      {
        action: 'find /testbed -type f | wc -l',
        observation: '12',
        reward: 1,
        admissible: true,
        durationMs: 30,
        parts: { file_diff: 0.33, file_changes: 0.33, answer_similarity: 0.33 },
        llm: {
          calls: [
            call(turn3, '```bash\nfind /testbed -type f | wc -l\n```', { costUsd: null, cached: true }),
          ],
        },
      },
    ],
    reward: 1,
    maxReward: 1,
    success: true,
    turnsTaken: 3,
    terminated: true,
    truncated: false,
    group: 'fs1',
    usage: { input: 360, output: 90, cachedInput: 300, cacheWrite: 0, reasoning: 24 },
    costUsd: null,
    durationMs: 900,
  };
}

/** A native tool-calling episode: one `execute` call with arguments that are not JSON, then `submit`. */
export function toolsEpisode(): EpisodeRecord {
  const first: ChatMessageData[] = [QUERY];
  const second: ChatMessageData[] = [
    ...first,
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_1', name: 'execute', argumentsText: '{"command": ls' }],
    },
    { role: 'tool', toolCallId: 'call_1', toolName: 'execute', content: 'the arguments are not valid JSON' },
  ];
  const bad = { id: 'call_1', name: 'execute', argumentsText: '{"command": ls' };
  const good = { id: 'call_2', name: 'submit', argumentsText: '{}' };
  return {
    ...tryAgainEpisode(),
    taskId: 'fs1/4',
    turns: [
      {
        action: '{"command": ls',
        observation: 'the arguments are not valid JSON',
        reward: 0,
        admissible: false,
        durationMs: 1,
        llm: {
          calls: [call(first, '', { toolCalls: [bad], finishReason: 'tool-calls' })],
          formatError: 'bad arguments',
        },
      },
      {
        action: 'submit',
        observation: '',
        reward: 0,
        admissible: true,
        durationMs: 1,
        llm: { calls: [call(second, '', { toolCalls: [good], finishReason: 'tool-calls' })] },
      },
    ],
    reward: 0,
    maxReward: 0,
    success: false,
    turnsTaken: 2,
    usage: { input: 240, output: 60, cachedInput: 200, cacheWrite: 0, reasoning: 16 },
    costUsd: 0.004,
  };
}
