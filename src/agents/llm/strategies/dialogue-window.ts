import type { ChatMessage } from '../model-client.js';

/**
 * The paper's dialogue limit: the messages that open the task (the query, and the schema hint with
 * `--handicap`) and the latest `limit` messages after them. Unlike the original, which kept its
 * first two messages (so with a schema hint the query itself could fall out), the query is always
 * kept.
 */
export function dialogueWindow(
  opening: readonly ChatMessage[],
  later: readonly ChatMessage[],
  limit: number,
): ChatMessage[] {
  return [...opening, ...(later.length > limit ? later.slice(later.length - limit) : later)];
}
