import type { Task } from '../../../core/task.js';
import type { ChatMessage, RequestContext } from '../model-client.js';
import type { EnvLanguage, PromptSet, StrategyName } from '../prompts/prompt-set.js';
import type { EpisodeLimits } from './episode-limits.js';
import type { ModelCaller } from './model-caller.js';

/** What a strategy plays one episode with. */
export interface StrategyContext {
  readonly task: Task;
  readonly env: EnvLanguage;
  readonly strategy: StrategyName;
  readonly prompts: PromptSet;
  /** The run's shared prefix (system prompt, demonstrations): one array for every episode. */
  readonly prefix: readonly ChatMessage[];
  /** Messages of the task that open its dialogue after the prefix (the SQL schema hint with `--handicap`). */
  readonly opening: readonly ChatMessage[];
  readonly caller: ModelCaller;
  readonly limits: EpisodeLimits;
  /** Try Again: how many of the latest messages are kept besides the opening ones (the paper's dialogue limit). */
  readonly dialogueLimit: number;
}

/** The request context of a call of `context`'s episode. */
export function requestContext(context: StrategyContext, turn: number, purpose?: string): RequestContext {
  return {
    taskId: context.task.id,
    turn,
    strategy: context.strategy,
    env: context.env,
    ...(purpose !== undefined ? { purpose } : {}),
  };
}
