import { describe, expect, it } from 'vitest';
import { parseModelSpec } from '../../../src/agents/llm/model-spec.js';
import { IntercodeError } from '../../../src/core/errors.js';

function failure(text: string): IntercodeError {
  try {
    parseModelSpec(text);
  } catch (error) {
    if (IntercodeError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`${text} parsed`);
}

describe('parseModelSpec', () => {
  it('splits at the first colon, so model names keep theirs', () => {
    expect(parseModelSpec('openai:gpt-4o')).toEqual({ provider: 'openai', model: 'gpt-4o' });
    expect(parseModelSpec('openai:llama3.1:8b')).toEqual({ provider: 'openai', model: 'llama3.1:8b' });
    expect(parseModelSpec(' Anthropic:claude-sonnet-4-5 ')).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
    expect(parseModelSpec('replay:runs/a b/episodes.jsonl')).toEqual({
      provider: 'replay',
      model: 'runs/a b/episodes.jsonl',
    });
  });

  it('rejects an unknown provider with MODEL_UNKNOWN_PROVIDER, naming it and the known ones', () => {
    const error = failure('gemini:pro');
    expect(error.code).toBe('MODEL_UNKNOWN_PROVIDER');
    expect(error.message).toBe(
      '--model "gemini:pro": unknown provider "gemini" (known: openai, anthropic, replay; an OpenAI-compatible server is openai: with OPENAI_BASE_URL)',
    );
  });

  it('rejects text without a provider or a model as a usage error', () => {
    for (const text of ['gpt-4o', ':gpt-4o', 'openai:', '']) {
      const error = failure(text);
      expect(error.code).toBe('USAGE');
      expect(error.message).toContain('expected PROVIDER:MODEL');
      expect(error.message).not.toContain('\n');
    }
  });
});
