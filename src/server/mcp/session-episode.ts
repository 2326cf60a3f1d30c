import type { EnvSession } from '../session/env-session.js';
import type { WireObservation, WireStep } from '../session/wire-schemas.js';
import type {
  McpEpisode,
  McpExecuteResult,
  McpResetRequest,
  McpSubmitResult,
  McpTask,
} from './mcp-episode.js';

function outputOf(observation: WireObservation): {
  output: string;
  exitCode: number | null;
  timedOut: boolean;
} {
  if ('stdout' in observation)
    return { output: observation.stdout, exitCode: observation.exit_code, timedOut: false };
  return { output: observation.output, exitCode: observation.exit_code, timedOut: observation.timed_out };
}

/**
 * An {@link McpEpisode} on a server session ({@link EnvSession}): the server's `/mcp` (Streamable
 * HTTP, OpenEnv's JSON-RPC, WebSocket `mcp` frames) plays through the same session class as its
 * `/reset` and `/step`, so both agree on limits, deadlines and errors. The first `execute` or
 * `submit` of a session that was never reset starts task 0 of the session's dataset.
 */
export class SessionEpisode implements McpEpisode {
  readonly session: EnvSession;
  readonly #closeSession: boolean;
  #index = 0;

  /** `closeSession`: {@link close} closes the session too (it belongs to this episode). */
  constructor(session: EnvSession, options: { closeSession?: boolean } = {}) {
    this.session = session;
    this.#closeSession = options.closeSession ?? false;
  }

  task(): McpTask | undefined {
    const task = this.session.task();
    if (!task) return undefined;
    return { ...task, index: this.#index, maxTurns: this.session.state().max_turns };
  }

  async reset(request: McpResetRequest): Promise<McpTask> {
    const reply = await this.session.reset({
      ...(request.taskId !== undefined ? { task_id: request.taskId } : {}),
      ...(request.index !== undefined ? { index: request.index } : {}),
      ...(request.seed !== undefined ? { seed: request.seed } : {}),
    });
    this.#index = typeof reply.info.index === 'number' ? reply.info.index : 0;
    return this.task()!;
  }

  async execute(code: string): Promise<McpExecuteResult> {
    const reply = await this.#step(code);
    return {
      ...outputOf(reply.observation),
      // The env's own per-step reward is told only when it scored the step (reward parts given).
      ...(reply.info.reward_parts !== undefined && reply.reward !== null ? { reward: reply.reward } : {}),
      ...this.#progress(reply),
    };
  }

  async submit(answer?: string): Promise<McpSubmitResult> {
    const reply = await this.#step(answer === undefined ? 'submit' : `submit ${answer}`);
    const parts = reply.info.reward_parts as Record<string, number> | undefined;
    return {
      output: outputOf(reply.observation).output,
      reward: reply.reward ?? 0,
      ...(parts ? { rewardParts: parts } : {}),
      ...this.#progress(reply),
    };
  }

  async close(): Promise<void> {
    if (this.#closeSession) await this.session.close();
  }

  async #step(code: string): Promise<WireStep> {
    if (!this.session.task()) await this.reset({});
    return this.session.step({ code });
  }

  #progress(reply: WireStep): { turn: number; done: boolean; truncated: boolean } {
    return { turn: this.session.state().step_count, done: reply.done, truncated: reply.truncated };
  }
}
