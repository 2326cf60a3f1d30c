import { UsageError } from '../../../core/errors.js';
import type { EnvLanguage, StrategyName } from '../prompts/prompt-set.js';

/** The strategies of `--strategy`, in the order the docs list them. */
export const STRATEGY_NAMES: readonly StrategyName[] = [
  'single',
  'try-again',
  'react',
  'plan-solve',
  'tools',
];

/** The environments a language-model agent has prompts for. */
export const ENV_LANGUAGES: readonly EnvLanguage[] = ['bash', 'sql', 'python', 'ctf'];

/** The prompt language of a run's environment; other environments have no prompts (yet). */
export function envLanguageOf(env: string): EnvLanguage {
  if ((ENV_LANGUAGES as readonly string[]).includes(env)) return env as EnvLanguage;
  throw new UsageError(
    `--agent llm has prompts for the ${ENV_LANGUAGES.join(', ')} environments, not for ${env}`,
  );
}
