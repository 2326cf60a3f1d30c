import { ModelError, UsageError } from '../../core/errors.js';

/** The providers `--model` accepts. */
export const MODEL_PROVIDERS = ['openai', 'anthropic', 'replay'] as const;

export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** A parsed `--model PROVIDER:MODEL`. */
export interface ModelSpec {
  readonly provider: ModelProvider;
  /** Everything after the first colon: `llama3:8b` keeps its own colon; for `replay`, a file. */
  readonly model: string;
}

function isProvider(name: string): name is ModelProvider {
  return (MODEL_PROVIDERS as readonly string[]).includes(name);
}

/**
 * Parses `PROVIDER:MODEL` (`openai:gpt-4o`, `anthropic:claude-sonnet-4-5`, `openai:llama3:8b` for an
 * Ollama model, `replay:results.json`). Throws `UsageError` when the text has no provider or no
 * model, and `ModelError` `MODEL_UNKNOWN_PROVIDER` for a provider that is not one of
 * `MODEL_PROVIDERS`; both messages are one line naming the input.
 */
export function parseModelSpec(text: string): ModelSpec {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(':');
  if (colon <= 0 || colon === trimmed.length - 1) {
    throw new UsageError(
      `--model ${JSON.stringify(text)}: expected PROVIDER:MODEL, e.g. openai:gpt-4o or anthropic:claude-sonnet-4-5`,
    );
  }
  const provider = trimmed.slice(0, colon).toLowerCase();
  const model = trimmed.slice(colon + 1);
  if (!isProvider(provider)) {
    throw new ModelError(
      'MODEL_UNKNOWN_PROVIDER',
      `--model ${JSON.stringify(text)}: unknown provider ${JSON.stringify(provider)} (known: ${MODEL_PROVIDERS.join(', ')}; an OpenAI-compatible server is openai: with OPENAI_BASE_URL)`,
    );
  }
  return { provider, model };
}
