import { episodeKey } from '../core/run-files/episode-line.js';
import type { ChatMessageData } from '../core/run-files/episode-record-schema.js';
import { type EpisodeRecord, episodeRecordSchema, failedEpisodeRecord } from '../harness/episode-record.js';
import { type EpisodeSlot, withSample } from '../harness/episode-slots.js';

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

/** Where the gathering run keeps the prefixes of results (the run directory's `prefixes.json`). */
export interface PrefixSink {
  add(prefixes: Readonly<Record<string, readonly ChatMessageData[]>>): void;
}

/**
 * The worker's result as a record of the job's episode, its prompt prefixes (an `EpisodeResult`)
 * added to the run's first; anything else is recorded as a failure.
 */
export function resultOf(
  slot: EpisodeSlot,
  value: unknown,
  options: { readonly dataset: string; readonly samples: number; readonly prefixes?: PrefixSink },
): EpisodeRecord {
  const { dataset } = options;
  const data = typeof value === 'string' ? safeJson(value) : value;
  if (typeof data === 'object' && data !== null && 'record' in data && 'prefixes' in data) {
    const { record, prefixes } = data as { record: unknown; prefixes: unknown };
    const fail = (problem: string) =>
      withSample(
        failedEpisodeRecord(slot.task, dataset, new Error(`the worker returned ${problem}`), 0),
        slot.sample,
        options.samples,
      );
    if (options.prefixes === undefined) return fail('prompt prefixes, which this run does not keep');
    if (typeof prefixes !== 'object' || prefixes === null) return fail('prefixes that are not an object');
    try {
      options.prefixes.add(prefixes as Record<string, ChatMessageData[]>);
    } catch (error) {
      return fail((error as Error).message);
    }
    return recordOf(slot, record, dataset, options.samples);
  }
  return recordOf(slot, data, dataset, options.samples);
}

/** The worker's result as a record of the job's episode; anything else is recorded as a failure. */
function recordOf(slot: EpisodeSlot, value: unknown, dataset: string, samples: number): EpisodeRecord {
  const parsed = episodeRecordSchema.safeParse(value);
  const problem = !parsed.success
    ? `not an episode record (${parsed.error.issues[0]?.message ?? 'invalid'})`
    : parsed.data.taskId !== slot.task.id || (parsed.data.sample ?? 0) !== slot.sample
      ? `the record of ${episodeKey(parsed.data)}, not of ${slot.key}`
      : undefined;
  if (parsed.success && problem === undefined) return parsed.data;
  const error = new Error(`the worker returned ${problem}`);
  return withSample(failedEpisodeRecord(slot.task, dataset, error, 0), slot.sample, samples);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
