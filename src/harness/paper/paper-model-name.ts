import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { PaperModel } from './paper-figure.js';

/** Model names as they appear in API model ids and in the upstream result files' names. */
const NAMES: readonly [RegExp, PaperModel][] = [
  [/^gpt-4(-0314|-0613)?$/, 'gpt-4'],
  [/^gpt-3\.5-turbo(-0301|-0613)?$/, 'gpt-3.5-turbo'],
  [/^text-davinci-003$/, 'text-davinci-003'],
  [/^(models\/)?text-bison-001$/, 'text-bison-001'],
  [/^(models\/)?chat-bison-001$/, 'chat-bison-001'],
  [/^vicuna-13b(-v1\.[0-9])?$/, 'vicuna-13b'],
  [/^starchat(-alpha|-beta)?(-16b)?$/, 'starchat-16b'],
];

/** The model names in the upstream `data/results` file and folder names. */
const FILE_TOKENS: readonly [RegExp, PaperModel][] = [
  [/(^|[_/-])gpt-4([_.-]|$)/, 'gpt-4'],
  [/(^|[_/-])gpt-3\.5([_.-]|$)/, 'gpt-3.5-turbo'],
  [/text-davinci-003/, 'text-davinci-003'],
  [/text-bison-001/, 'text-bison-001'],
  [/chat-bison-001/, 'chat-bison-001'],
  [/vicuna/, 'vicuna-13b'],
  [/starchat/, 'starchat-16b'],
];

function fromFileName(name: string): PaperModel | undefined {
  return FILE_TOKENS.find(([pattern]) => pattern.test(name))?.[1];
}

/**
 * The model of a recorded trajectory file: an `episodes.jsonl` of ours is the model its run's
 * `summary.json` names; an upstream result file's model is in its name (`…_gpt-4_10_turns.json`)
 * or its folder's (`gpt-3.5/ic_sql_react_10_turns.json`).
 */
function modelOfRecording(file: string, depth: number): PaperModel | undefined {
  if (basename(file) === 'episodes.jsonl') {
    const summary = join(dirname(file), 'summary.json');
    if (!existsSync(summary) || depth > 3) return undefined;
    try {
      const { model } = JSON.parse(readFileSync(summary, 'utf8')) as { model?: unknown };
      return typeof model === 'string' ? paperModelName(model, depth + 1) : undefined;
    } catch {
      return undefined;
    }
  }
  return fromFileName(basename(file)) ?? fromFileName(basename(dirname(file)));
}

/**
 * The paper's name of the model a run used, from its `--model PROVIDER:MODEL` (`openai:gpt-4`,
 * `openrouter:openai/gpt-3.5-turbo`; a dated snapshot of the paper's time counts as the model), or
 * for `replay:<file>` the model that recorded the file. `undefined` for a model the paper did not run.
 */
export function paperModelName(spec: string | undefined, depth = 0): PaperModel | undefined {
  if (spec === undefined) return undefined;
  const colon = spec.indexOf(':');
  const provider = colon < 0 ? '' : spec.slice(0, colon);
  const model = colon < 0 ? spec : spec.slice(colon + 1);
  if (provider === 'replay') return modelOfRecording(model, depth);
  const name = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return NAMES.find(([pattern]) => pattern.test(name))?.[1];
}
