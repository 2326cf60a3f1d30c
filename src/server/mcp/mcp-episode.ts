/**
 * What the MCP tools drive: one episode at a time of one dataset. The library implementation
 * (`LibraryEpisode`, used by `intercode mcp`) plays on an opened run directly; the server's `/mcp`
 * plays on an `EnvSession`. The MCP server (`createMcpServer`) knows only this interface.
 */
export interface McpEpisode {
  /** The task of the current episode, or undefined before the first reset. */
  task(): McpTask | undefined;
  /** Ends the current episode (recorded as truncated when unfinished) and starts a new one. */
  reset(request: McpResetRequest): Promise<McpTask>;
  /** Runs code in the episode; a non-zero exit is a result, not an error. */
  execute(code: string): Promise<McpExecuteResult>;
  /** Submits (with an answer for the environments that take one) and ends the episode. */
  submit(answer?: string): Promise<McpSubmitResult>;
  /** The MCP client's name and version from its `initialize`, for the run's record. */
  setClient?(client: { readonly name: string; readonly version: string }): void;
  /** Ends the episode (an unfinished one is recorded as truncated) and releases the env. Idempotent. */
  close(): Promise<void>;
}

/** Which task a reset starts: a task id beats an index, an index beats a seed; none → task 0. */
export interface McpResetRequest {
  readonly taskId?: string;
  readonly index?: number;
  /** Task index = seed mod dataset size. */
  readonly seed?: number;
}

/** The task of an episode, as the `intercode://task/current` resource shows it. */
export interface McpTask {
  readonly dataset: string;
  readonly taskId: string;
  readonly index: number;
  readonly instruction: string;
  readonly maxTurns: number;
}

/** The state an episode is in after a tool call. */
export interface McpEpisodeProgress {
  /** Turns taken in this episode. */
  readonly turn: number;
  /** The episode is over: submitted, or cut at the turn limit. Reset to play again. */
  readonly done: boolean;
  /** It was cut at the turn limit rather than submitted. */
  readonly truncated: boolean;
}

export interface McpExecuteResult extends McpEpisodeProgress {
  readonly output: string;
  /** The command's exit code when the environment runs commands; null otherwise. */
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  /** Only when the environment scores every step itself; the reward is otherwise told at submit. */
  readonly reward?: number;
}

export interface McpSubmitResult extends McpEpisodeProgress {
  readonly output: string;
  readonly reward: number;
  readonly rewardParts?: Readonly<Record<string, number>>;
}
