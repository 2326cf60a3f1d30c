import type { Task } from '../../core/task.js';
import type { Agent, EpisodePolicy } from '../agent.js';
import type { ChatMessage } from './model-client.js';
import type { EnvLanguage, PromptSet, StrategyName } from './prompts/prompt-set.js';
import { promptSet, schemaHint } from './prompts/prompt-set.js';
import { type EpisodeLimitOptions, EpisodeLimits } from './strategies/episode-limits.js';
import { ModelCaller, type ModelCallerOptions } from './strategies/model-caller.js';
import { planSolveStrategy } from './strategies/plan-solve-strategy.js';
import { reactStrategy } from './strategies/react-strategy.js';
import type { StrategyContext } from './strategies/strategy-context.js';
import { toolsStrategy } from './strategies/tools-strategy.js';
import { tryAgainStrategy } from './strategies/try-again-strategy.js';

/** The paper's dialogue limits (messages kept after the opening ones): Bash 7, the others 5. */
export const DIALOGUE_LIMITS: Readonly<Record<EnvLanguage, number>> = { bash: 7, sql: 5, python: 5, ctf: 5 };

export interface LlmAgentOptions extends ModelCallerOptions {
  readonly env: EnvLanguage;
  readonly strategy: StrategyName;
  /** SQL: the tables and columns of the task's database as a second system message (`--handicap`). */
  readonly handicap?: boolean;
  readonly limits?: EpisodeLimitOptions;
  /** Try Again's dialogue limit; default {@link DIALOGUE_LIMITS}. */
  readonly dialogueLimit?: number;
}

/**
 * A language model as an agent (`--agent llm`): each episode is played by the chosen strategy's
 * policy, which asks the model, parses its answer and returns the turn (an action with its model
 * record, a format reminder, or a stop at a per-episode limit). Try Again, single turn and Plan &
 * Solve are scored after every action as the environment says (Bash, SQL, Python; CTF only on
 * `submit`); ReAct and tools are scored on the model's `submit`, with a forced submit at the turn
 * limit. A model error propagates: the harness records the episode with `error` and `--resume` plays
 * it again.
 */
export class LlmAgent implements Agent {
  readonly name = 'llm';
  readonly model: string;
  readonly strategy: StrategyName;
  readonly scoreEveryTurn?: boolean;
  readonly submitAtTurnLimit?: boolean;
  readonly #options: LlmAgentOptions;
  readonly #prompts: PromptSet;
  readonly #prefix: readonly ChatMessage[];

  constructor(options: LlmAgentOptions) {
    this.#options = options;
    this.model = options.client.id;
    this.strategy = options.strategy;
    if (options.strategy === 'react' || options.strategy === 'tools') {
      this.scoreEveryTurn = false;
      this.submitAtTurnLimit = true;
    }
    this.#prompts = promptSet(options.env, options.strategy);
    const demonstrations = this.#prompts.demonstrations;
    this.#prefix = [
      {
        role: 'system',
        content: demonstrations ? `${this.#prompts.system}\n\n${demonstrations}` : this.#prompts.system,
        cacheBreakpoint: true,
      },
    ];
  }

  episode(task: Task): EpisodePolicy {
    const options = this.#options;
    const limits = new EpisodeLimits(options.limits ?? {});
    const context: StrategyContext = {
      task,
      env: options.env,
      strategy: options.strategy,
      prompts: this.#prompts,
      prefix: this.#prefix,
      opening: this.#opening(task),
      caller: new ModelCaller(options, limits),
      limits,
      dialogueLimit: options.dialogueLimit ?? DIALOGUE_LIMITS[options.env],
    };
    const budget = options.budget;
    budget?.start(task.id);
    const policy = this.#policy(context);
    if (budget === undefined) return policy;
    return {
      act: (turn) => policy.act(turn),
      close: async () => {
        budget.finish(task.id);
        await policy.close?.();
      },
    };
  }

  #policy(context: StrategyContext): EpisodePolicy {
    switch (context.strategy) {
      case 'single':
        return tryAgainStrategy(context, { single: true });
      case 'try-again':
        return tryAgainStrategy(context, { single: false });
      case 'react':
        return reactStrategy(context);
      case 'plan-solve':
        return planSolveStrategy(context);
      case 'tools':
        return toolsStrategy(context);
    }
  }

  /** The task's own opening messages: the SQL schema hint with `--handicap`. */
  #opening(task: Task): ChatMessage[] {
    if (!this.#options.handicap || this.#options.env !== 'sql') return [];
    const tables = task.meta.db_tables;
    if (typeof tables !== 'object' || tables === null) return [];
    const list = Object.entries(tables as Record<string, unknown>).map(([name, columns]) => ({
      name,
      columns: Array.isArray(columns) ? columns.map(String) : [String(columns)],
    }));
    return list.length > 0 ? [{ role: 'system', content: schemaHint(list) }] : [];
  }
}
