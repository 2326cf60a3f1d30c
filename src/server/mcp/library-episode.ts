import type { Env } from '../../core/env.js';
import { EnvError } from '../../core/errors.js';
import type { Task } from '../../core/task.js';
import type { OpenedRun } from '../../harness/run-plan.js';
import type { RunRecorder } from '../run-recorder.js';
import { EpisodeInFlight } from './episode-in-flight.js';
import type {
  McpEpisode,
  McpExecuteResult,
  McpResetRequest,
  McpSubmitResult,
  McpTask,
} from './mcp-episode.js';

export interface LibraryEpisodeOptions {
  /** Turns before an episode is cut (recorded as truncated by `max-turns`). */
  readonly maxTurns: number;
  /** Where finished episodes go; without one, nothing is recorded. */
  readonly recorder?: RunRecorder;
}

/** The task a reset request names, checked against the dataset. */
export function pickTask(tasks: readonly Task[], datasetId: string, request: McpResetRequest): Task {
  if (request.taskId !== undefined) {
    const task = tasks.find((candidate) => candidate.id === request.taskId);
    if (!task)
      throw new EnvError('ENV_TASK_NOT_FOUND', `task_id "${request.taskId}" is not a task of ${datasetId}`);
    return task;
  }
  if (tasks.length === 0) throw new EnvError('ENV_TASK_NOT_FOUND', `${datasetId} has no tasks`);
  const index = request.index ?? (request.seed !== undefined ? request.seed % tasks.length : 0);
  const task = tasks[index];
  if (!task) {
    throw new EnvError(
      'ENV_TASK_NOT_FOUND',
      `index ${index} is out of range 0-${tasks.length - 1} for ${datasetId}`,
    );
  }
  return task;
}

/**
 * An {@link McpEpisode} on an opened run of the library (`planRun` → `OpenedRun` → `Env`), for
 * `intercode mcp` over stdio: no HTTP server involved. One env is reused from episode to episode,
 * as `intercode run` does, and replaced after an infrastructure failure. Tool calls are served one
 * at a time, in the order they came.
 */
export class LibraryEpisode implements McpEpisode {
  readonly #run: OpenedRun;
  readonly #options: LibraryEpisodeOptions;
  #env: Env | undefined;
  #current: EpisodeInFlight | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(run: OpenedRun, options: LibraryEpisodeOptions) {
    this.#run = run;
    this.#options = options;
  }

  task(): McpTask | undefined {
    const task = this.#current?.task;
    return task && this.#describe(task);
  }

  reset(request: McpResetRequest): Promise<McpTask> {
    return this.#serial(async () => {
      const task = pickTask(this.#run.dataset.tasks, this.#run.dataset.id, request);
      await this.#current?.stop();
      this.#env ??= this.#run.createEnv();
      const env = this.#env;
      this.#current = new EpisodeInFlight(
        env,
        task,
        { dataset: this.#run.dataset.id, maxTurns: this.#options.maxTurns },
        (record, envBroken) => {
          this.#options.recorder?.append(record);
          if (envBroken && this.#env === env) {
            this.#env = undefined;
            void env.close().catch(() => {});
          }
        },
      );
      await this.#current.started();
      return this.#describe(task);
    });
  }

  execute(code: string): Promise<McpExecuteResult> {
    return this.#serial(async () => {
      const played = await this.#episode().play({ type: 'code', code });
      const observation = played.step?.observation;
      const scored = played.step?.info.score !== undefined;
      return {
        output: played.turn.observation,
        exitCode: observation?.exitCode ?? null,
        timedOut: observation?.timedOut ?? false,
        ...(scored ? { reward: played.step!.reward } : {}),
        turn: played.turns,
        done: played.ended,
        truncated: played.ended && played.record?.truncated === true,
      };
    });
  }

  submit(answer?: string): Promise<McpSubmitResult> {
    return this.#serial(async () => {
      const played = await this.#episode().play(
        answer === undefined ? { type: 'submit' } : { type: 'submit', answer },
      );
      return {
        output: played.turn.observation,
        reward: played.turn.reward,
        ...(played.turn.parts ? { rewardParts: played.turn.parts } : {}),
        turn: played.turns,
        done: played.ended,
        truncated: played.ended && played.record?.truncated === true,
      };
    });
  }

  setClient(client: { readonly name: string; readonly version: string }): void {
    this.#options.recorder?.setClient(client);
  }

  close(): Promise<void> {
    if (this.#closed) return this.#queue.then(() => {});
    this.#closed = true;
    // An unfinished episode is stopped now, not after the calls queued behind it.
    const stopping = this.#current?.stop();
    return this.#serial(async () => {
      await stopping;
      // The record is complete before the env's (slower) teardown.
      this.#options.recorder?.close();
      await this.#env?.close().catch(() => {});
      this.#env = undefined;
    }, true);
  }

  #episode(): EpisodeInFlight {
    if (!this.#current) throw new EnvError('ENV_RESET_NEEDED', 'no episode yet: call reset first');
    return this.#current;
  }

  #describe(task: Task): McpTask {
    return {
      dataset: this.#run.dataset.id,
      taskId: task.id,
      index: task.index,
      instruction: task.query,
      maxTurns: this.#options.maxTurns,
    };
  }

  #serial<T>(work: () => Promise<T>, closing = false): Promise<T> {
    const run = async () => {
      if (this.#closed && !closing) throw new EnvError('ENV_CLOSED', 'the episode server is closed');
      return work();
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => {});
    return result;
  }
}
