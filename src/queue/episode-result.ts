import type { ChatMessageData } from '../core/run-files/episode-record-schema.js';
import type { EpisodeRecord } from '../harness/episode-record.js';

/**
 * A worker's result for a language-model episode: the record, and the shared prompt prefixes its
 * model calls name (name → messages), which the gathering run adds to `prefixes.json` before it
 * appends the record. Other agents' results are the record alone.
 */
export interface EpisodeResult {
  readonly record: EpisodeRecord;
  readonly prefixes: Readonly<Record<string, readonly ChatMessageData[]>>;
}

/** The prefixes `record`'s model calls name, looked up with `lookup`; a name it cannot resolve throws. */
export function prefixesOf(
  record: EpisodeRecord,
  lookup: (name: string) => readonly ChatMessageData[] | undefined,
): Record<string, readonly ChatMessageData[]> {
  const prefixes: Record<string, readonly ChatMessageData[]> = {};
  for (const turn of record.turns) {
    for (const call of turn.llm?.calls ?? []) {
      if (call.prefix === undefined || call.prefix in prefixes) continue;
      const messages = lookup(call.prefix);
      if (messages === undefined)
        throw new Error(`the episode names prefix ${call.prefix}, which the agent does not hold`);
      prefixes[call.prefix] = messages;
    }
  }
  return prefixes;
}
