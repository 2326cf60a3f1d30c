import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseModelSpec } from '../agents/llm/model-spec.js';
import type { AgentSpec, InlineFile } from '../queue/run-meta.js';
import type { LlmFlags } from './llm-flags.js';

/** Files of a language-model run that workers have no copy of: a replay model's recording, a price table. */
export interface LlmInlineFiles {
  readonly model?: InlineFile;
  readonly prices?: InlineFile;
}

/** The flags that travel to the workers (`--max-cost` is the gatherer's; keys never travel, only `--api-key-env`). */
const TRAVELLING = [
  'model',
  'strategy',
  'temperature',
  'maxTokens',
  'providerOption',
  'baseUrl',
  'apiKeyEnv',
  'prices',
  'cache',
  'maxEpisodeTokens',
  'maxEpisodeSeconds',
] as const satisfies readonly (keyof LlmFlags)[];

function inline(path: string): InlineFile {
  return { name: basename(path), text: readFileSync(path, 'utf8') };
}

/**
 * The `llm` agent spec of a distributed run: the run's language-model flags as given (the key's
 * variable name, never a key), with the files they name sent along (`replay:FILE`, `--prices FILE`).
 */
export function llmSpecOf(flags: LlmFlags): AgentSpec {
  const travelling: Record<string, unknown> = {};
  for (const key of TRAVELLING) if (flags[key] !== undefined) travelling[key] = flags[key];
  const files: { model?: InlineFile; prices?: InlineFile } = {};
  const model = parseModelSpec(flags.model ?? '');
  if (model.provider === 'replay') files.model = inline(model.model);
  if (flags.prices !== undefined) files.prices = inline(flags.prices);
  return { kind: 'llm', flags: { ...travelling, files } };
}

/** The flags and files of an `llm` agent spec, as {@link llmSpecOf} wrote them. */
export function llmFlagsOfSpec(spec: Readonly<Record<string, unknown>>): {
  flags: LlmFlags;
  files: LlmInlineFiles;
} {
  const flags: Record<string, unknown> = {};
  for (const key of TRAVELLING) if (spec[key] !== undefined) flags[key] = spec[key];
  return { flags: flags as LlmFlags, files: (spec.files ?? {}) as LlmInlineFiles };
}
