import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DatasetError } from '../../core/errors.js';
import { EPISODE_RECORD_VERSION } from '../../core/run-files/episode-line.js';
import { episodeRecordSchema, turnRecordSchema } from '../../core/run-files/episode-record-schema.js';
import { parseJsonLines } from '../../core/run-files/parse-json-lines.js';
import { parseVersioned, type VersionedFormat } from '../../core/run-files/versioned-format.js';
import type { Task } from '../../core/task.js';

/** The actions of one recorded episode, with what the recording says about each. */
export interface RecordedEpisode {
  readonly key: string;
  readonly query?: string;
  readonly actions: readonly string[];
  /** ReAct thoughts, by turn (upstream `turn_history.thoughts`, our `llm.thought`). */
  readonly thoughts?: readonly string[];
  /** The Plan & Solve plan, one step per turn from `planTurn` (upstream `turn_history.steps`, our `llm.step`). */
  readonly steps?: readonly string[];
  /** The turn whose plan was taken (ours: after plans without steps, which were format errors); default 0. */
  readonly planTurn?: number;
  /**
   * By turn: false where the original did not take the model's answer as code: nothing ran and the
   * model got a format reminder. Absent when every turn was taken as code or the recording cannot
   * tell.
   */
  readonly tookAsCode?: readonly boolean[];
}

/**
 * What the original's loops answered when a model's output held no code (try-again, single turn,
 * Plan & Solve, ReAct): recognised in a recorded observation, so the turn is known as not run. An
 * action that ran and failed (`valid_action` false with an error observation) is still code.
 */
const FORMAT_REMINDER =
  /code was found in your last response|^Format your \w+ command as follows|action did not contain \w+ code/;

/** False for each turn whose recorded observation is the original's format reminder; undefined when none is. */
function tookAsCode(actions: readonly string[], observations: unknown): boolean[] | undefined {
  if (!Array.isArray(observations)) return undefined;
  const asCode = actions.map((_action, turn) => {
    const observation: unknown = observations[turn];
    return !(typeof observation === 'string' && FORMAT_REMINDER.test(observation));
  });
  return someFalse(asCode);
}

function someFalse(list: boolean[]): boolean[] | undefined {
  return list.includes(false) ? list : undefined;
}

function fail(path: string, why: string): never {
  throw new DatasetError('DATASET_INVALID', `trajectory file ${path}: ${why}`);
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
    ? (value as string[])
    : undefined;
}

/**
 * A line of an `episodes.jsonl` as a replay reads it: the episode record schema with every field
 * optional but the turns and their actions (a trajectory written by hand needs no more), each field
 * that is there checked, versions as for the run log.
 */
const recordedLineSchema = episodeRecordSchema.partial().extend({
  turns: z.array(turnRecordSchema.partial().required({ action: true })),
});

const recordedLineFormat: VersionedFormat<z.infer<typeof recordedLineSchema>> = {
  what: 'recorded episode',
  version: EPISODE_RECORD_VERSION,
  schema: recordedLineSchema,
};

/** One upstream entry: `turn_history.actions` (eval loops) or `trajectory[].action` (the env's own log). */
function fromUpstream(key: string, entry: Record<string, unknown>): RecordedEpisode | undefined {
  const query = typeof entry.query === 'string' ? entry.query : undefined;
  const history = asRecord(entry.turn_history);
  const actions = stringList(history?.actions);
  if (actions) {
    const thoughts = stringList(history?.thoughts);
    const steps = stringList(history?.steps);
    const asCode = tookAsCode(actions, history?.observations);
    return {
      key: String(entry.task_id ?? key),
      ...(query ? { query } : {}),
      actions,
      ...(thoughts ? { thoughts } : {}),
      ...(steps ? { steps } : {}),
      ...(asCode ? { tookAsCode: asCode } : {}),
    };
  }
  if (Array.isArray(entry.trajectory)) {
    const steps = entry.trajectory
      .map((step) => asRecord(step))
      .filter((step) => typeof step?.action === 'string');
    const list = steps.map((step) => step?.action as string);
    const asCode = tookAsCode(
      list,
      steps.map((step) => step?.observation),
    );
    return {
      key: String(entry.query_idx ?? entry.task_id ?? key),
      ...(query ? { query } : {}),
      actions: list,
      ...(asCode ? { tookAsCode: asCode } : {}),
    };
  }
  return undefined;
}

/** A line of our own `episodes.jsonl`: a language-model run's turns carry their thought, step and format error. */
function fromEpisodeRecord(record: z.infer<typeof recordedLineSchema>, position: number): RecordedEpisode {
  const turns = record.turns;
  const hasThoughts = turns.some((turn) => turn.llm?.thought !== undefined);
  const planTurn = turns.findIndex((turn) => turn.llm?.step !== undefined);
  const asCode = someFalse(turns.map((turn) => turn.llm?.formatError === undefined));
  return {
    key: String(record.taskId ?? record.index ?? position),
    ...(record.query !== undefined ? { query: record.query } : {}),
    actions: turns.map((turn) => turn.action),
    ...(hasThoughts ? { thoughts: turns.map((turn) => turn.llm?.thought ?? '') } : {}),
    ...(planTurn >= 0
      ? {
          steps: turns.slice(planTurn).map((turn) => turn.llm?.step ?? ''),
          ...(planTurn > 0 ? { planTurn } : {}),
        }
      : {}),
    ...(asCode ? { tookAsCode: asCode } : {}),
  };
}

/**
 * Reads recorded trajectories: the upstream `data/results` formats (an object keyed by task index,
 * optionally wrapped as `{meta, logs}`; a single saved episode with `trajectory`) and this project's
 * `episodes.jsonl` (checked line by line against the episode record schema, see `recordedLineSchema`).
 */
export function readRecordedTrajectories(path: string): RecordedEpisode[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    fail(path, `cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (path.endsWith('.jsonl')) {
    const episodes = parseJsonLines(text, `trajectory file ${path}`, (value, where, position) => {
      const record = parseVersioned(value, recordedLineFormat, where);
      return fromEpisodeRecord(record, position);
    });
    if (episodes.length === 0) fail(path, 'holds no episodes');
    return episodes;
  }
  let data: Record<string, unknown> | undefined;
  try {
    data = asRecord(JSON.parse(text));
  } catch {
    fail(path, 'is not valid JSON');
  }
  if (!data) fail(path, 'is not a JSON object');
  const single = fromUpstream('0', data);
  if (single) return [single];
  const logs = asRecord(data.logs) ?? data;
  const episodes: RecordedEpisode[] = [];
  for (const [key, value] of Object.entries(logs)) {
    const entry = asRecord(value);
    const episode = entry && fromUpstream(key, entry);
    if (episode) episodes.push(episode);
  }
  if (episodes.length === 0) fail(path, 'holds no recognisable episodes');
  return episodes;
}

/**
 * Finds a task's recorded episode: the one recorded under the task's id or position with the task's
 * query; else one with its query that no other task has by id or position (`claimed`: upstream Bash
 * logs are keyed by position in their own file, not by our ids); else the one with its id (a reworded
 * query). Id and position first matter where tasks share a query text (CTF 30/31/34, MBPP).
 */
export function matchRecorded(
  episodes: readonly RecordedEpisode[],
  task: Task,
  claimed?: ReadonlySet<RecordedEpisode>,
): RecordedEpisode | undefined {
  return (
    exactRecorded(episodes, task) ??
    episodes.find((episode) => sameQuery(episode, task) && !claimed?.has(episode)) ??
    episodes.find((episode) => episode.key === task.id && !claimed?.has(episode))
  );
}

/** The episode recorded under the task's id or position with its query (or with no query recorded). */
export function exactRecorded(episodes: readonly RecordedEpisode[], task: Task): RecordedEpisode | undefined {
  const keys = [task.id, String(task.index)];
  return (
    episodes.find(
      (episode) => episode.key === task.id && (episode.query === undefined || sameQuery(episode, task)),
    ) ?? episodes.find((episode) => keys.includes(episode.key) && sameQuery(episode, task))
  );
}

function sameQuery(episode: RecordedEpisode, task: Task): boolean {
  return episode.query !== undefined && episode.query === task.query;
}
