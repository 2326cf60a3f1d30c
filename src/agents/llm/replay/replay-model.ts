import { basename } from 'node:path';
import { DatasetError, ModelError, UsageError } from '../../../core/errors.js';
import { type RecordedEpisode, readRecordedTrajectories } from '../../replay/recorded-trajectories.js';
import { type ModelClient, type ModelRequest, type ModelResponse, NO_USAGE } from '../model-client.js';
import { recordedAnswer } from './recorded-answer.js';

/**
 * `--model replay:<file>`: a model that answers each request with the next recorded turn of the
 * request's task from a recorded trajectory file (the upstream `data/results` formats or an
 * `episodes.jsonl`), written the way a model writes it for the request's strategy, so the whole loop
 * (prompt, model call, parser, env, score, run files) runs offline on real recorded behaviour. It
 * costs no tokens and never waits. Design notes and the measured fidelity: docs/agents/replay-model.md.
 */
export class ReplayModel implements ModelClient {
  readonly id: string;
  readonly provider = 'replay';
  readonly model: string;
  readonly #episodes: readonly RecordedEpisode[];
  readonly #byKey = new Map<string, RecordedEpisode[]>();
  readonly #matched = new Map<string, RecordedEpisode | undefined>();
  readonly #name: string;

  /** Reads `path` (a `DatasetError` naming it when it cannot be read or holds no episode). */
  constructor(path: string) {
    this.model = path;
    this.id = `replay:${path}`;
    this.#name = basename(path);
    this.#episodes = readRecordedTrajectories(path);
    for (const episode of this.#episodes) {
      const list = this.#byKey.get(episode.key) ?? [];
      list.push(episode);
      this.#byKey.set(episode.key, list);
    }
  }

  /** The recorded episodes, in file order. */
  get episodes(): readonly RecordedEpisode[] {
    return this.#episodes;
  }

  /**
   * True when the file holds an episode of the task with this id and query: recorded under the id
   * with that query (or with none recorded), else recorded with that query under any key.
   */
  has(taskId: string, query: string): boolean {
    return this.#find(taskId, (recorded) => recorded === query) !== undefined;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const started = performance.now();
    const episode = this.#episodeOf(request);
    const answer = recordedAnswer(episode, request, this.#name);
    const text = cutAtStop(answer.text, request.stop);
    return {
      text,
      toolCalls: answer.toolCalls,
      finishReason: answer.toolCalls.length > 0 ? 'tool-calls' : 'stop',
      usage: NO_USAGE,
      latencyMs: performance.now() - started,
      retries: [],
      modelId: this.#name,
    };
  }

  async check(): Promise<void> {}

  /**
   * The request's task: matched once per task id, then remembered. A task's query is not part of a
   * request, so it is recognised in the messages (every strategy's prompt states it).
   */
  #episodeOf(request: ModelRequest): RecordedEpisode {
    const { taskId } = request.context;
    if (!this.#matched.has(taskId)) {
      const said = request.messages
        .filter((message) => message.role === 'user' || message.role === 'system')
        .map((message) => message.content)
        .join('\n');
      this.#matched.set(
        taskId,
        this.#find(taskId, (query) => said.includes(query)),
      );
    }
    const episode = this.#matched.get(taskId);
    if (episode === undefined) {
      throw new ModelError(
        'MODEL_REJECTED',
        `replay model ${this.#name}: the file holds no episode of task ${taskId} (its query is not among the recorded ones)`,
      );
    }
    return episode;
  }

  /**
   * The episode under `taskId` whose recorded query fits (or that has none), else the one whose
   * query fits (the longest such, where recorded queries contain each other), else the one under
   * `taskId` (the dataset reworded its query).
   */
  #find(taskId: string, fits: (query: string) => boolean): RecordedEpisode | undefined {
    const underId = this.#byKey.get(taskId) ?? [];
    const exact = underId.find((episode) => episode.query === undefined || fits(episode.query));
    if (exact) return exact;
    let best: RecordedEpisode | undefined;
    for (const episode of this.#episodes) {
      if (
        episode.query !== undefined &&
        fits(episode.query) &&
        episode.query.length > (best?.query?.length ?? 0)
      )
        best = episode;
    }
    return best ?? underId[0];
  }
}

/** Cuts the answer at the first of the request's stop sequences, as a provider does. */
function cutAtStop(text: string, stop: readonly string[] | undefined): string {
  let end = text.length;
  for (const sequence of stop ?? []) {
    const at = sequence === '' ? -1 : text.indexOf(sequence);
    if (at >= 0 && at < end) end = at;
  }
  return text.slice(0, end);
}

/**
 * The `replay` provider of `createModelClient`: `pathOrSpec` is the recording's path, with or
 * without its `replay:` prefix. A path that is missing or is not a recording is a `UsageError`
 * naming it, raised before any episode starts.
 */
export function createReplayModel(pathOrSpec: string): ModelClient {
  const path = pathOrSpec.startsWith('replay:') ? pathOrSpec.slice('replay:'.length) : pathOrSpec;
  if (path === '') throw new UsageError('--model replay: needs a file: replay:<trajectory file>');
  try {
    return new ReplayModel(path);
  } catch (error) {
    if (error instanceof DatasetError) throw new UsageError(`--model: ${error.message}`);
    throw error;
  }
}
