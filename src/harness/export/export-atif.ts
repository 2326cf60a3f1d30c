import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { TOOL_SPECS } from '../../agents/llm/parsers/tool-specs.js';
import type { EnvLanguage } from '../../agents/llm/prompts/prompt-set.js';
import { PREFIXES_FILE } from '../../agents/llm/strategies/prefix-store.js';
import { DatasetError } from '../../core/errors.js';
import { type ChatMessageData, chatMessageSchema } from '../../core/run-files/episode-record-schema.js';
import type { RunDirectory } from '../run-files/read-run-directory.js';
import { atifTrajectorySchema } from './atif-schema.js';
import { episodeTrajectory } from './atif-trajectory.js';

const prefixesSchema = z.record(z.string(), z.array(chatMessageSchema));

/** The shared prompt prefixes of a run directory by name; none when it has no `prefixes.json`. */
export function readRunPrefixes(directory: string): Record<string, readonly ChatMessageData[]> {
  const path = join(directory, PREFIXES_FILE);
  if (!existsSync(path)) return {};
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new DatasetError('DATASET_INVALID', `${path} is not valid JSON`);
  }
  const parsed = prefixesSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DatasetError(
      'DATASET_INVALID',
      `${path} is not a map of prompt prefixes: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
    );
  }
  return parsed.data;
}

const LANGUAGES: readonly string[] = ['bash', 'sql', 'python', 'ctf'] satisfies EnvLanguage[];

/** The tools a `tools` run offered the model, as OpenAI function definitions; none for other runs. */
function toolDefinitions(
  strategy: string | undefined,
  env: string | undefined,
): Record<string, unknown>[] | undefined {
  if (strategy !== 'tools' || env === undefined || !LANGUAGES.includes(env)) return undefined;
  return TOOL_SPECS(env as EnvLanguage).map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/**
 * The episodes of a run as ATIF v1.7 trajectories, one JSON line each, in the order of
 * `episodes.jsonl`. Each is checked against the ATIF schema before it is returned; a run file
 * that yields an invalid one fails in one line naming the episode.
 */
export function exportAtif(run: RunDirectory, version: string): string[] {
  const summary = run.summary;
  const context = {
    runName: basename(resolve(run.directory)),
    version,
    agent: summary?.agent ?? 'unknown',
    ...(summary?.model !== undefined ? { model: summary.model } : {}),
    ...(summary?.strategy !== undefined ? { strategy: summary.strategy } : {}),
    ...(summary?.env !== undefined ? { env: summary.env } : {}),
    prefixes: readRunPrefixes(run.directory),
  };
  const tools = toolDefinitions(summary?.strategy, summary?.env);
  return run.episodes.map((episode) => {
    const trajectory = episodeTrajectory(episode, tools ? { ...context, toolDefinitions: tools } : context);
    const checked = atifTrajectorySchema.safeParse(trajectory);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new DatasetError(
        'DATASET_INVALID',
        `episode ${episode.taskId} of ${run.directory} does not make a valid ATIF trajectory: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
      );
    }
    return `${JSON.stringify(trajectory)}\n`;
  });
}
