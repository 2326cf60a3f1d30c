/**
 * The Bash (NL2Bash) reward of InterCode, as a pure function of what the environment measured.
 *
 * reward = 0.01 + p1 + p2 + p3, added left to right in float64 (so a perfect episode is exactly
 * 1.0 and partial sums keep their float artefacts, e.g. 0.7100000000000001), where
 * - p1 `file_diff`: round(0.33 · (1 − erf(|miss| + |extra|)), 2) over the sets of (path, status)
 *   pairs from `git status --short` in the agent's and the gold's sandboxes: 0.33 for no difference,
 *   0.05 for one, 0 for two or more;
 * - p2 `file_changes`: for the pairs present in both with status `A`, `??` or `C` (modified `M` and
 *   deleted `D` are never content-checked), round(0.33 · correct / total, 2) where correct counts the
 *   paths whose content hash is the same in both sandboxes; 0.33 when there is no such pair;
 * - p3 `answer_similarity`: round(0.33 · sim, 2), sim the TF-IDF cosine of the agent's last
 *   observation and the gold command's output, or, when that has no vocabulary (neither text has a
 *   token of two word characters) or the gold command failed, 1 if the texts are equal and else 0.
 *
 * Rounding is Python's `round` (half-even on the exact binary value), not `Math.round`.
 */

import { pythonRound } from '../../python-compat/python-round.js';
import { erf } from './erf.js';
import type { GitStatusEntry } from './git-status.js';
import { tfidfCosine } from './tfidf-cosine.js';

/** The most each part can contribute, and the floor of the reward. */
export const PART_WEIGHT = 0.33;
export const BASE_REWARD = 0.01;

/** Status codes whose files get a content (hash) comparison. */
export const CONTENT_CHECKED_STATUSES: ReadonlySet<string> = new Set(['A', '??', 'C']);

/** Whether a path's content (hash command output) is the same in the agent's and the gold's sandbox. */
export type SameContent = ReadonlyMap<string, boolean> | ((path: string) => boolean);

export interface BashRewardInput {
  /** `git status --short` of the agent's sandbox, parsed (see `parseGitStatus`). */
  readonly agentChanges: readonly GitStatusEntry[];
  /** `git status --short` of the gold's sandbox after running the gold command, parsed. */
  readonly evalChanges: readonly GitStatusEntry[];
  /**
   * Content comparison for every path of `contentCheckedChanges(agentChanges, evalChanges)`:
   * true when the hash command printed the same text in both sandboxes. A map must hold each of
   * those paths; a missing one throws.
   */
  readonly sameContent: SameContent;
  /** The agent's last observation (the task's query text if it ran no command). */
  readonly agentOutput: string;
  /** The gold command's output, or null when running it failed. */
  readonly goldOutput: string | null;
}

export type BashRewardParts = {
  /** p1, from the file-system diff. */
  readonly file_diff: number;
  /** p2, from the content of files both changed. */
  readonly file_changes: number;
  /** p3, from the output similarity. */
  readonly answer_similarity: number;
};

export type BashRewardDetails = {
  /** The similarity p3 was computed from (TF-IDF cosine, or 1/0 from the equality fallback). */
  readonly similarity: number;
  /** True when `similarity` came from the exact-equality fallback rather than TF-IDF. */
  readonly similarityFromEquality: boolean;
  /** Pairs the gold produced and the agent did not. */
  readonly diffMiss: readonly GitStatusEntry[];
  /** Pairs the agent produced and the gold did not. */
  readonly diffExtra: readonly GitStatusEntry[];
  /** Present when some shared pair was content-checked (upstream's `diff_same`). */
  readonly diffSame?: {
    readonly files: readonly GitStatusEntry[];
    readonly correct: number;
    readonly total: number;
  };
};

export type BashReward = {
  readonly value: number;
  readonly parts: BashRewardParts;
  readonly details: BashRewardDetails;
};

function entryKey(entry: GitStatusEntry): string {
  return JSON.stringify([entry.path, entry.status]);
}

/** Distinct entries in order of first appearance (upstream builds Python sets). */
function distinct(entries: readonly GitStatusEntry[]): Map<string, GitStatusEntry> {
  const out = new Map<string, GitStatusEntry>();
  for (const entry of entries) {
    const key = entryKey(entry);
    if (!out.has(key)) out.set(key, { path: entry.path, status: entry.status });
  }
  return out;
}

/** Entries of `from` (distinct) that `other` does not contain. */
function difference(from: readonly GitStatusEntry[], other: readonly GitStatusEntry[]): GitStatusEntry[] {
  const exclude = distinct(other);
  return [...distinct(from)].filter(([key]) => !exclude.has(key)).map(([, entry]) => entry);
}

/**
 * The pairs whose content the reward compares (upstream's `diff_same`): distinct pairs present in
 * both lists with status `A`, `??` or `C`, in the agent's order. The environment hashes exactly
 * these paths in both sandboxes.
 */
export function contentCheckedChanges(
  agentChanges: readonly GitStatusEntry[],
  evalChanges: readonly GitStatusEntry[],
): GitStatusEntry[] {
  const inEval = distinct(evalChanges);
  return [...distinct(agentChanges)]
    .filter(([key, entry]) => inEval.has(key) && CONTENT_CHECKED_STATUSES.has(entry.status))
    .map(([, entry]) => entry);
}

function isSame(sameContent: SameContent, path: string): boolean {
  if (typeof sameContent === 'function') return sameContent(path);
  const same = sameContent.get(path);
  if (same === undefined)
    throw new RangeError(`no content comparison given for changed path ${JSON.stringify(path)}`);
  return same;
}

/** p1 for a number of mismatched (path, status) pairs. */
export function fileDiffScore(mismatches: number): number {
  return pythonRound(PART_WEIGHT * (1 - erf(mismatches)), 2);
}

/** p2 for `correct` of `total` content-checked files (0.33 when there are none). */
export function fileChangesScore(correct: number, total: number): number {
  if (total === 0) return PART_WEIGHT;
  return pythonRound(PART_WEIGHT * (correct / total), 2);
}

/**
 * The similarity p3 is computed from: the TF-IDF cosine, or, when the texts have no vocabulary or
 * the gold output is missing, 1 for equal texts and 0 otherwise.
 */
export function answerSimilarity(
  agentOutput: string,
  goldOutput: string | null,
): { similarity: number; fromEquality: boolean } {
  const cosine = goldOutput === null ? null : tfidfCosine(agentOutput, goldOutput);
  if (cosine !== null) return { similarity: cosine, fromEquality: false };
  return { similarity: agentOutput === goldOutput ? 1 : 0, fromEquality: true };
}

/** p3 for a similarity. */
export function answerSimilarityScore(similarity: number): number {
  return pythonRound(PART_WEIGHT * similarity, 2);
}

/** 0.01 + file_diff + file_changes + answer_similarity, added left to right as upstream does. */
export function sumRewardParts(parts: BashRewardParts): number {
  let value = BASE_REWARD;
  value += parts.file_diff;
  value += parts.file_changes;
  value += parts.answer_similarity;
  return value;
}

/** The full reward, parts and the evidence behind them; see the module comment. */
export function bashReward(input: BashRewardInput): BashReward {
  const diffMiss = difference(input.evalChanges, input.agentChanges);
  const diffExtra = difference(input.agentChanges, input.evalChanges);
  const fileDiff = fileDiffScore(diffMiss.length + diffExtra.length);

  const files = contentCheckedChanges(input.agentChanges, input.evalChanges);
  let correct = 0;
  for (const file of files) if (isSame(input.sameContent, file.path)) correct += 1;
  const fileChanges = fileChangesScore(correct, files.length);

  const { similarity, fromEquality } = answerSimilarity(input.agentOutput, input.goldOutput);
  const answer = answerSimilarityScore(similarity);

  const parts: BashRewardParts = {
    file_diff: fileDiff,
    file_changes: fileChanges,
    answer_similarity: answer,
  };
  return {
    value: sumRewardParts(parts),
    parts,
    details: {
      similarity,
      similarityFromEquality: fromEquality,
      diffMiss,
      diffExtra,
      ...(files.length > 0 ? { diffSame: { files, correct, total: files.length } } : {}),
    },
  };
}
