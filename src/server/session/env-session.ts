import { randomUUID } from 'node:crypto';
import { parseAction } from '../../core/action.js';
import type { Env, StepResult } from '../../core/env.js';
import { IntercodeError } from '../../core/errors.js';
import { TimeLimit } from '../../core/time-limit.js';
import type { RunConfig } from '../../harness/run-config.js';
import type { EnvSessionOptions } from './env-session-options.js';
import { EpisodeTracker } from './episode-tracker.js';
import type { RunLease } from './run-pool.js';
import { parseResetParams, runConfigKey, sessionRunConfig, taskChoice } from './session-config.js';
import { asWireError, SessionError } from './session-error.js';
import { wireObservation } from './wire-observation.js';

export type { EnvSessionOptions } from './env-session-options.js';

import {
  ActionSchema,
  type ResetParams,
  type SessionParams,
  toValidationIssues,
  type WireAction,
  type WireState,
  type WireStep,
} from './wire-schemas.js';

interface Slot {
  readonly key: string;
  readonly config: RunConfig;
  readonly lease: RunLease;
  readonly env: Env;
}

interface Episode {
  readonly id: string;
  readonly dataset: string;
  readonly taskId: string;
  readonly instruction: string;
  readonly maxTurns: number;
  readonly limit: TimeLimit;
  steps: number;
  done: boolean;
  /** Its turns, for the record (only with an `onEpisodeEnd` sink). */
  readonly tracker: EpisodeTracker | undefined;
}

/**
 * One session of the server = one env slot: the WebSocket connection, the HTTP session, the MCP
 * session and the stateless HTTP request all play episodes through this class, so they behave alike.
 * A reset reuses the env when the configuration is the same and replaces it otherwise; a reset or
 * step past its deadline discards the env (its sandboxes reaped) and the next reset makes a new one.
 */
export class EnvSession {
  readonly id: string = randomUUID();
  /** ms epoch of the last reset, step or MCP call, for the idle reaper. */
  lastActivity: number = Date.now();
  readonly #options: EnvSessionOptions;
  #slot: Slot | undefined;
  #episode: Episode | undefined;
  #busy = false;
  #closed = false;
  /** Envs being closed (replaced, discarded): {@link close} waits for them. */
  readonly #closing = new Set<Promise<void>>();

  constructor(options: EnvSessionOptions) {
    this.#options = options;
  }

  /** The options the session was opened with (each reset may override them). */
  get params(): SessionParams | undefined {
    return this.#options.params;
  }

  /** True while a reset or step runs. */
  get busy(): boolean {
    return this.#busy;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Marks activity that is not a reset or step (an MCP call), so the idle reaper leaves the session. */
  touch(): void {
    this.lastActivity = Date.now();
  }

  /** Starts an episode. `params` are validated here (paths of issues are relative to the params). */
  async reset(params: ResetParams | Readonly<Record<string, unknown>> = {}): Promise<WireStep> {
    return this.#exclusive(async () => {
      const parsed = parseResetParams(params);
      const merged = { ...this.#options.params, ...parsed.params };
      const config = sessionRunConfig(merged, this.#options.defaults, this.#options.registries);
      const slot = await this.#slotFor(runConfigKey(config), config);
      const run = slot.lease.run;
      const choice = taskChoice(parsed.params, run.dataset.tasks.length);
      if ('taskId' in choice && !run.dataset.tasks.some((task) => task.id === choice.taskId)) {
        throw SessionError.validation(
          ['task_id'],
          `no task "${choice.taskId}" in ${run.dataset.id}`,
          choice.taskId,
        );
      }
      if ('index' in choice && choice.index >= run.dataset.tasks.length) {
        throw SessionError.validation(
          ['index'],
          `task index ${choice.index} is out of range 0-${run.dataset.tasks.length - 1} of ${run.dataset.id}`,
          choice.index,
        );
      }
      const maxTurns = merged.max_turns ?? this.#options.defaults.maxTurns;
      const limit = new TimeLimit(slot.env, maxTurns);
      this.#forgetEpisode();
      const { observation, info } = await this.#deadline(() => limit.reset(choice), 'reset');
      const sink = this.#options.onEpisodeEnd;
      const task = sink && run.dataset.tasks.find((candidate) => candidate.id === info.taskId);
      const episode: Episode = {
        id: parsed.params.episode_id ?? randomUUID(),
        dataset: run.dataset.id,
        taskId: info.taskId,
        instruction: info.query,
        maxTurns,
        limit,
        steps: 0,
        done: false,
        tracker:
          sink && task
            ? new EpisodeTracker(
                {
                  task,
                  resetInfo: info,
                  dataset: run.dataset.id,
                  config,
                  description: run.description,
                  maxTurns,
                  transport: this.#options.transport ?? 'http',
                  sessionId: this.id,
                },
                sink,
              )
            : undefined,
      };
      this.#episode = episode;
      return {
        observation: wireObservation(
          observation,
          episode,
          info.query,
          this.#options.defaults.observationProfile,
        ),
        reward: null,
        done: false,
        terminated: false,
        truncated: false,
        info: {
          dataset: episode.dataset,
          task_id: episode.taskId,
          index: info.index,
          episode_id: episode.id,
          ...(parsed.ignoredKeys.length > 0 ? { ignored_keys: parsed.ignoredKeys } : {}),
        },
      };
    });
  }

  /** Takes one action. `timeoutMs` lowers the server's step deadline for this step. */
  async step(action: WireAction | unknown, options: { timeoutMs?: number } = {}): Promise<WireStep> {
    return this.#exclusive(async () => {
      const episode = this.#episode;
      if (!episode) throw new SessionError('NOT_RESET', 'no episode: send a reset first');
      if (episode.done) throw new SessionError('EPISODE_DONE', 'the episode is done: send a reset first');
      const parsed = ActionSchema.safeParse(action);
      if (!parsed.success) {
        const issues = toValidationIssues(parsed.error, action);
        throw new SessionError(
          'VALIDATION_ERROR',
          `invalid action: ${issues.map((issue) => `${issue.loc.join('.') || 'action'}: ${issue.msg}`).join('; ')}`,
          { issues },
        );
      }
      const started = performance.now();
      const taken = parseAction(parsed.data.code);
      let result: StepResult;
      try {
        result = await this.#deadline(() => episode.limit.step(taken), 'step', options.timeoutMs);
      } catch (error) {
        // A step past its deadline has cut the episode already (the env was discarded).
        if (!(error instanceof SessionError)) episode.tracker?.fail(asWireError(error));
        throw error;
      }
      episode.steps += 1;
      // Recorded only while the episode is the session's (a close during the step has cut it).
      if (this.#episode === episode) episode.tracker?.turn(taken, result);
      const done = result.terminated || result.truncated;
      episode.done = done;
      const score = result.info.score;
      return {
        observation: wireObservation(
          result.observation,
          episode,
          null,
          this.#options.defaults.observationProfile,
        ),
        reward: result.reward,
        done,
        terminated: result.terminated,
        truncated: result.truncated,
        info: {
          admissible: result.info.admissible,
          ...(score?.parts ? { reward_parts: { ...score.parts } } : {}),
          ...(score?.scoreLimit ? { score_limit: score.scoreLimit } : {}),
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        },
      };
    });
  }

  /**
   * `count` new sessions, each continuing this session's episode on its own copy of the env (see
   * `Env.fork`), made by `make` (the registry's, which counts them). Each branch is an episode of its
   * own (a new `episode_id`; recorded with the turns so far). FORK_UNSUPPORTED where the env cannot
   * copy its state.
   */
  async fork(
    count: number,
    make: () => EnvSession,
  ): Promise<{ sessions: EnvSession[]; notCopied: readonly string[] }> {
    return this.#exclusive(async () => {
      const episode = this.#episode;
      const slot = this.#slot;
      if (!episode || !slot) throw new SessionError('NOT_RESET', 'no episode to fork: send a reset first');
      if (episode.done)
        throw new SessionError('EPISODE_DONE', 'the episode is done: there is nothing to fork');
      const fork = slot.env.fork?.bind(slot.env);
      if (!fork) {
        throw new SessionError(
          'FORK_UNSUPPORTED',
          `episodes of ${episode.dataset} cannot be forked here (the SQL environment on SQLite, the Bash environment on bwrap and the Python environment can)`,
        );
      }
      let forked: Awaited<ReturnType<typeof fork>>;
      try {
        forked = await this.#deadline(() => fork(count), 'fork');
      } catch (error) {
        if (IntercodeError.isInstance(error) && error.code === 'ENV_FORK_UNSUPPORTED') {
          throw new SessionError('FORK_UNSUPPORTED', error.message);
        }
        throw error;
      }
      const sessions: EnvSession[] = [];
      try {
        for (const env of forked.envs) {
          const session = make();
          sessions.push(session);
          await session.#adopt(slot, env, episode);
        }
      } catch (error) {
        await Promise.all([
          ...sessions.map((session) => session.close()),
          ...forked.envs.slice(sessions.length).map((env) => env.close()),
        ]);
        throw error;
      }
      return { sessions, notCopied: forked.notCopied };
    });
  }

  /** Takes a forked env mid-episode: a lease on the same run, the episode's turns so far. */
  async #adopt(from: Slot, env: Env, episode: Episode): Promise<void> {
    let lease: RunLease;
    try {
      lease = await this.#options.pool.acquire(from.config);
    } catch (error) {
      await env.close();
      throw error;
    }
    this.#slot = { key: from.key, config: from.config, lease, env };
    this.#episode = {
      ...episode,
      id: randomUUID(),
      limit: new TimeLimit(env, episode.maxTurns, { turnsTaken: episode.steps }),
      tracker: episode.tracker?.branch(this.id),
    };
  }

  state(): WireState {
    const episode = this.#episode;
    return {
      episode_id: episode?.id ?? null,
      step_count: episode?.steps ?? 0,
      dataset: episode?.dataset ?? null,
      task_id: episode?.taskId ?? null,
      done: episode?.done ?? false,
      max_turns: episode?.maxTurns ?? this.#options.params?.max_turns ?? this.#options.defaults.maxTurns,
    };
  }

  /** The current episode's task (never its gold), or undefined before the first reset. */
  task(): { dataset: string; taskId: string; instruction: string } | undefined {
    const episode = this.#episode;
    return episode
      ? { dataset: episode.dataset, taskId: episode.taskId, instruction: episode.instruction }
      : undefined;
  }

  /** Closes the session and its env (sandboxes reaped); a running step is abandoned. Idempotent. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#forgetEpisode();
      this.#discard();
    }
    while (this.#closing.size > 0) await Promise.all([...this.#closing]);
  }

  async #exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new SessionError('SESSION_NOT_FOUND', `session ${this.id} is closed`);
    if (this.#busy) throw new SessionError('SESSION_BUSY', 'a request is already running on this session');
    this.#busy = true;
    this.lastActivity = Date.now();
    try {
      return await work();
    } catch (error) {
      throw asWireError(error);
    } finally {
      this.#busy = false;
      this.lastActivity = Date.now();
    }
  }

  /** The env of the session for configuration `key`: kept when the key is the same, else replaced. */
  async #slotFor(key: string, config: RunConfig): Promise<Slot> {
    if (this.#slot?.key === key) return this.#slot;
    const lease = await this.#options.pool.acquire(config);
    if (this.#closed) {
      lease.release();
      throw new SessionError('SESSION_NOT_FOUND', `session ${this.id} was closed during its reset`);
    }
    this.#discard();
    let env: Env;
    try {
      env = lease.run.createEnv();
    } catch (error) {
      lease.release();
      throw error;
    }
    const slot = { key, config, lease, env };
    this.#slot = slot;
    return slot;
  }

  /** Closes the session's env in the background (close() waits for it) and forgets the episode. */
  #discard(): void {
    const slot = this.#slot;
    this.#slot = undefined;
    this.#forgetEpisode();
    if (!slot) return;
    const closing: Promise<void> = slot.env
      .close()
      .catch(() => undefined)
      .finally(() => {
        slot.lease.release();
        this.#closing.delete(closing);
      });
    this.#closing.add(closing);
  }

  /** Forgets the current episode; one that is not done is recorded as cut (truncated). */
  #forgetEpisode(): void {
    this.#episode?.tracker?.cut();
    this.#episode = undefined;
  }

  /**
   * Runs `work` in an execution slot and waits for it until the deadline (queueing time included, so
   * a reply always comes before the client's own timeout); past it the env is discarded and
   * STEP_TIMEOUT thrown (an operation still queued then never runs).
   */
  #deadline<T>(work: () => Promise<T>, what: 'reset' | 'step' | 'fork', timeoutMs?: number): Promise<T> {
    const limitMs = Math.min(timeoutMs ?? Number.POSITIVE_INFINITY, this.#options.stepTimeoutMs);
    let timer: NodeJS.Timeout | undefined;
    let expired = false;
    const slots = this.#options.slots;
    const running = slots ? slots.run(work, () => expired) : work();
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        expired = true;
        running.catch(() => undefined);
        this.#discard();
        reject(
          new SessionError(
            'STEP_TIMEOUT',
            `the ${what} did not finish within ${limitMs / 1000} s: the env was discarded, send a reset`,
          ),
        );
      }, limitMs);
    });
    return Promise.race([running, deadline]).finally(() => clearTimeout(timer));
  }
}
