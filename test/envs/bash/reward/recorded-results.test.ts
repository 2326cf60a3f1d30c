/**
 * The paper's recorded Bash results (data/results/bash/** of the upstream repository) against our
 * reward functions: for every logged episode whose final `info` stores the reward parts and both
 * outputs, our TF-IDF similarity, p1/p2/p3 and the reward sum must reproduce the logged values.
 *
 * The data is read from $INTERCODE_DATA_MIRROR (default: ../shared/datasets/intercode next to the
 * project); without that folder the suite is skipped, saying so (it fails under INTERCODE_REQUIRE_ALL).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  answerSimilarity,
  answerSimilarityScore,
  bashReward,
  fileChangesScore,
  fileDiffScore,
  sumRewardParts,
} from '../../../../src/envs/bash/reward/bash-reward.js';
import type { GitStatusEntry } from '../../../../src/envs/bash/reward/git-status.js';
import { mirrorMissing } from '../../../support/missing-components.js';
import { MIRROR } from '../../../support/project.js';
import { describeMissing } from '../../../support/skip-if-missing.js';

const mirror = MIRROR;
const resultsDir = join(mirror, 'data', 'results', 'bash');
const noMirror = mirrorMissing(mirror);
const mirrorPresent = noMirror === null;

/** The Bash info dict of a logged episode's last submit, once checked for the fields we use. */
interface LoggedInfo {
  reward: { file_diff: number; file_changes: number; answer_similarity: number };
  agent_obs: string;
  eval_obs: string | null;
  answer_similarity: number;
  diff_miss: [string, string][];
  diff_extra: [string, string][];
  diff_same?: { files: [string, string][]; correct: number; total: number };
}

interface LoggedEntry {
  key: string;
  info: unknown;
  rewards: unknown;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isPairList = (value: unknown): value is [string, string][] =>
  Array.isArray(value) &&
  value.every((p) => Array.isArray(p) && p.length === 2 && p.every((s) => typeof s === 'string'));

/** The fields the reward check needs, or null when the entry does not store them all. */
function readInfo(info: unknown): LoggedInfo | null {
  if (!isObject(info) || !isObject(info.reward)) return null;
  const { file_diff, file_changes, answer_similarity } = info.reward;
  if (
    typeof file_diff !== 'number' ||
    typeof file_changes !== 'number' ||
    typeof answer_similarity !== 'number'
  ) {
    return null;
  }
  if (typeof info.agent_obs !== 'string' || !('eval_obs' in info)) return null;
  if (typeof info.eval_obs !== 'string' && info.eval_obs !== null) return null;
  if (typeof info.answer_similarity !== 'number') return null;
  if (!isPairList(info.diff_miss) || !isPairList(info.diff_extra)) return null;
  if (info.diff_same !== undefined) {
    const same = info.diff_same;
    if (!isObject(same) || !isPairList(same.files) || typeof same.correct !== 'number') return null;
    if (typeof same.total !== 'number') return null;
  }
  return info as unknown as LoggedInfo;
}

/** Episodes of a result file: a bare object keyed by index, or `{ meta, logs }` (Plan & Solve). */
function entriesOf(json: unknown): LoggedEntry[] {
  if (!isObject(json)) throw new Error('result file is not a JSON object');
  const episodes = isObject(json.logs) && 'meta' in json ? json.logs : json;
  return Object.entries(episodes)
    .filter((pair): pair is [string, Json] => isObject(pair[1]))
    .map(([key, episode]) => ({
      key,
      info: episode.info,
      rewards: isObject(episode.turn_history) ? episode.turn_history.rewards : undefined,
    }));
}

function resultFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...resultFiles(path));
    else if (name.endsWith('.json')) out.push(path);
  }
  return out;
}

const pairs = (list: [string, string][]): GitStatusEntry[] =>
  list.map(([path, status]) => ({ path, status }));

interface FileReport {
  rel: string;
  entries: LoggedEntry[];
  withInfo: LoggedEntry[];
}

const reports: FileReport[] =
  mirrorPresent && existsSync(resultsDir)
    ? resultFiles(resultsDir).map((path) => {
        const entries = entriesOf(JSON.parse(readFileSync(path, 'utf8')));
        return {
          rel: relative(resultsDir, path),
          entries,
          withInfo: entries.filter((e) => isObject(e.info)),
        };
      })
    : [];

if (noMirror) {
  describeMissing('recorded Bash results', noMirror);
} else {
  describe(`recorded Bash results in ${resultsDir}`, () => {
    it('finds the Bash result files, some with reward info', () => {
      expect(existsSync(resultsDir), `${resultsDir} exists`).toBe(true);
      expect(reports.length).toBeGreaterThan(0);
      expect(reports.some((r) => r.withInfo.length > 0)).toBe(true);
    });

    for (const { rel, entries, withInfo } of reports) {
      if (withInfo.length === 0) {
        it(`${rel}: ${entries.length} episodes, none stores reward info (nothing to check)`, () => {
          expect(entries.length).toBeGreaterThan(0);
          expect(withInfo).toHaveLength(0);
        });
        continue;
      }

      describe(rel, () => {
        const checked = withInfo.map((entry) => ({ entry, info: readInfo(entry.info) }));
        const nullGold = checked.filter(({ info }) => info?.eval_obs === null).length;
        const fallback = checked.filter(
          ({ info }) => info !== null && answerSimilarity(info.agent_obs, info.eval_obs).fromEquality,
        ).length;

        it(`all ${withInfo.length} entries with info store the reward parts and both outputs`, () => {
          expect(withInfo.length).toBeGreaterThan(0);
          expect(checked.filter(({ info }) => info === null).map(({ entry }) => entry.key)).toEqual([]);
        });

        it(`${withInfo.length}/${withInfo.length} entries: similarity (${fallback} by equality fallback, ${nullGold} with failed gold), p3 and 0.01+p1+p2+p3 = last-turn reward`, () => {
          const mismatches: string[] = [];
          let count = 0;
          for (const { entry, info } of checked) {
            if (info === null) continue;
            count += 1;
            const where = `${rel} #${entry.key}`;
            // (a) similarity from the logged outputs, and p3 from it.
            const ours = answerSimilarity(info.agent_obs, info.eval_obs);
            if (!(Math.abs(ours.similarity - info.answer_similarity) <= 1e-9)) {
              mismatches.push(`${where}: similarity ${ours.similarity} vs logged ${info.answer_similarity}`);
            }
            const p3 = answerSimilarityScore(ours.similarity);
            if (p3 !== info.reward.answer_similarity) {
              mismatches.push(`${where}: p3 ${p3} vs logged ${info.reward.answer_similarity}`);
            }
            // (b) the logged parts add up to the logged last-turn reward.
            const rewards = entry.rewards;
            const last = Array.isArray(rewards) ? rewards.at(-1) : undefined;
            const sum = sumRewardParts(info.reward);
            if (sum !== last)
              mismatches.push(`${where}: 0.01+parts ${sum} vs last-turn reward ${String(last)}`);
          }
          expect(mismatches).toEqual([]);
          expect(count).toBe(withInfo.length);
          expect(count).toBeGreaterThan(0);
        });

        it(`${withInfo.length}/${withInfo.length} entries: TF-IDF similarity equal to the logged float bit for bit`, () => {
          const mismatches: string[] = [];
          let tfidf = 0;
          for (const { entry, info } of checked) {
            if (info === null) continue;
            const ours = answerSimilarity(info.agent_obs, info.eval_obs);
            if (!ours.fromEquality) tfidf += 1;
            if (ours.similarity !== info.answer_similarity) {
              mismatches.push(`#${entry.key}: ${ours.similarity} vs ${info.answer_similarity}`);
            }
          }
          expect(mismatches).toEqual([]);
          expect(tfidf).toBe(withInfo.length - fallback);
        });

        it(`${withInfo.length}/${withInfo.length} entries: p1 from |diff_miss|+|diff_extra|, p2 from diff_same, and bashReward end to end`, () => {
          const mismatches: string[] = [];
          for (const { entry, info } of checked) {
            if (info === null) continue;
            const where = `#${entry.key}`;
            const p1 = fileDiffScore(info.diff_miss.length + info.diff_extra.length);
            if (p1 !== info.reward.file_diff)
              mismatches.push(`${where}: p1 ${p1} vs ${info.reward.file_diff}`);
            const same = info.diff_same;
            const p2 = same ? fileChangesScore(same.correct, same.total) : fileChangesScore(0, 0);
            if (p2 !== info.reward.file_changes)
              mismatches.push(`${where}: p2 ${p2} vs ${info.reward.file_changes}`);

            // Rebuild change lists consistent with the logged diff: shared files plus each side's extras.
            const shared = pairs(same?.files ?? []);
            const sameContent = new Map<string, boolean>();
            shared.forEach((file, i) => {
              sameContent.set(file.path, i < (same?.correct ?? 0));
            });
            const result = bashReward({
              agentChanges: [...shared, ...pairs(info.diff_extra)],
              evalChanges: [...shared, ...pairs(info.diff_miss)],
              sameContent,
              agentOutput: info.agent_obs,
              goldOutput: info.eval_obs,
            });
            const rewards = entry.rewards;
            const last = Array.isArray(rewards) ? rewards.at(-1) : undefined;
            if (result.value !== last)
              mismatches.push(`${where}: bashReward ${result.value} vs ${String(last)}`);
            if (
              result.parts.file_diff !== info.reward.file_diff ||
              result.parts.file_changes !== info.reward.file_changes ||
              result.parts.answer_similarity !== info.reward.answer_similarity
            ) {
              mismatches.push(
                `${where}: parts ${JSON.stringify(result.parts)} vs ${JSON.stringify(info.reward)}`,
              );
            }
          }
          expect(mismatches).toEqual([]);
        });
      });
    }
  });
}
