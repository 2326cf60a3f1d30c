import { ctfPromptSet } from './ctf-prompt-set.js';
import { directPromptSet } from './direct-prompt-set.js';
import { planSolvePromptSet } from './plan-solve-prompt-set.js';
import { reactPromptSet } from './react-prompt-set.js';
import { toolsPromptSet } from './tools-prompt-set.js';

/** The prompting strategies of `--strategy`: the paper's four and native tool calling. */
export type StrategyName = 'single' | 'try-again' | 'react' | 'plan-solve' | 'tools';

/** The language an environment takes its actions in. */
export type EnvLanguage = 'bash' | 'sql' | 'python' | 'ctf';

/**
 * The messages of one strategy in one environment, written for this project after the structure of
 * the paper's prompts (docs/agents/prompts-and-parsers.md).
 */
export interface PromptSet {
  /** Role, the system the model talks to, the answer format, the reward scale, the goal. */
  readonly system: string;
  /** ReAct / Plan & Solve worked examples; the cacheable prefix ends after them. */
  readonly demonstrations?: string;
  /** The first user message. */
  query(query: string): string;
  /** A later turn's message: the last action's output (or a no-output line), its reward, the query. */
  observation(o: { output: string; reward?: number; query: string }): string;
  /** The message after an answer that held no runnable action. */
  formatReminder(): string;
  /** Plan & Solve: asks for a numbered plan. */
  planRequest?(query: string): string;
  /** Plan & Solve: one step of the plan, with the output of the previous step's code. */
  step?(s: { step: string; output?: string }): string;
}

/**
 * The prompt set of a strategy in an environment. CTF has its own wording for the direct strategies
 * (flag format, `submit <flag>`, `skip`); every other pair is built from the environment's setting.
 */
export function promptSet(env: EnvLanguage, strategy: StrategyName): PromptSet {
  switch (strategy) {
    case 'single':
    case 'try-again':
      return env === 'ctf' ? ctfPromptSet(strategy) : directPromptSet(env, strategy);
    case 'react':
      return reactPromptSet(env);
    case 'plan-solve':
      return planSolvePromptSet(env);
    case 'tools':
      return toolsPromptSet(env);
  }
}

export { schemaHint } from './schema-hint.js';
export { truncateObservation } from './truncate-observation.js';
