/**
 * The paper's recorded SQL results (data/results/sql/** of the upstream repository) against our
 * reward: every logged episode whose final `info` stores both result sets must get exactly the
 * logged `info.reward` back.
 *
 * How the logs store the result sets (`info.agent_obs`, `info.eval_obs`):
 * - mostly as the Python text `str(result)`, e.g. `[(14, 'Rachelle', 'Funk', 3)]`, which holds the
 *   exact `str(row)` strings upstream compared (`Decimal('…')`, `datetime.datetime(…)` included).
 *   We parse it, re-render every row with `pyRowStr` and require the re-rendering to reproduce the
 *   logged text character for character, so this also checks `python-repr.ts` on real data;
 * - in the first 17 Plan & Solve episodes, in the refine run and in the human run, as JSON arrays
 *   (tuples became arrays). Python's `json` writes a float with its repr (`68.0`) and an int
 *   without a point, so reading the numbers losslessly gives back the same `str(row)` text for
 *   ints, floats, strings and `None`. (A value that was a `Decimal` cannot be told apart from a
 *   float there; none of these episodes depends on it.)
 * - error messages (`Error executing query: …`), `None` / `null`: not a result set → reward 0.
 *
 * The data is read from $INTERCODE_DATA_MIRROR (default: ../shared/datasets/intercode next to the
 * project); without that folder the suite is skipped, saying so (it fails under INTERCODE_REQUIRE_ALL).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PyTuple, pyRepr, pyRowStr } from '../../../../src/envs/python-compat/python-repr.js';
import { type SqlReward, type SqlRewardRule, sqlReward } from '../../../../src/envs/sql/reward/sql-reward.js';
import { mirrorMissing } from '../../../support/missing-components.js';
import { MIRROR } from '../../../support/project.js';
import { describeMissing } from '../../../support/skip-if-missing.js';
import {
  JsonNumber,
  jsonToPy,
  type LosslessJson,
  parseJsonLossless,
  parsePythonLiteral,
} from './logged-observations.js';

const mirror = MIRROR;
const resultsDir = join(mirror, 'data', 'results', 'sql');
const noMirror = mirrorMissing(mirror);
const mirrorPresent = noMirror === null;

type JsonObject = { [key: string]: LosslessJson };
const isObject = (v: LosslessJson | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);

type Form = 'python-text' | 'json' | 'not-a-result-set';

/** The `str(row)` strings of a logged result set, or null when it is not one. */
function loggedRows(obs: LosslessJson | undefined): { rows: string[] | null; form: Form } {
  if (obs === null || obs === undefined) return { rows: null, form: 'not-a-result-set' };
  if (typeof obs === 'string') {
    if (!obs.startsWith('[')) return { rows: null, form: 'not-a-result-set' }; // error text, 'None'
    const value = parsePythonLiteral(obs);
    if (!Array.isArray(value) || !value.every((row) => row instanceof PyTuple)) {
      throw new Error(`not a list of tuples: ${obs.slice(0, 80)}`);
    }
    const again = pyRepr(value);
    if (again !== obs) throw new Error(`re-rendering differs:\n${obs.slice(0, 300)}\n${again.slice(0, 300)}`);
    return { rows: value.map((row) => pyRowStr(row as PyTuple)), form: 'python-text' };
  }
  if (Array.isArray(obs)) {
    return {
      rows: obs.map((row) => {
        if (!Array.isArray(row)) throw new Error('a logged row is not an array');
        return pyRowStr(row.map(jsonToPy));
      }),
      form: 'json',
    };
  }
  throw new Error(`unexpected observation ${String(obs)}`);
}

interface Checked {
  key: string;
  logged: number;
  lastTurn: number | undefined;
  ours: SqlReward;
  agentForm: Form;
  goldForm: Form;
}

interface FileCheck {
  rel: string;
  episodes: number;
  withInfo: number;
  checked: Checked[];
  errors: string[];
}

function checkFile(rel: string): FileCheck {
  const json = parseJsonLossless(readFileSync(join(resultsDir, rel), 'utf8'));
  if (!isObject(json)) throw new Error(`${rel} is not a JSON object`);
  const episodes = isObject(json.logs) && 'meta' in json ? json.logs : json;
  const entries = Object.entries(episodes).filter((pair): pair is [string, JsonObject] => isObject(pair[1]));
  const checked: Checked[] = [];
  const errors: string[] = [];
  let withInfo = 0;
  for (const [key, episode] of entries) {
    const info = episode.info;
    if (!isObject(info)) continue;
    withInfo += 1;
    try {
      if (!(info.reward instanceof JsonNumber)) throw new Error('info.reward is not a number');
      const agent = loggedRows(info.agent_obs);
      const gold = loggedRows(info.eval_obs);
      const history = episode.turn_history;
      const rewards = isObject(history) ? history.rewards : undefined;
      const last = Array.isArray(rewards) ? rewards.at(-1) : undefined;
      checked.push({
        key,
        logged: info.reward.value,
        lastTurn: last instanceof JsonNumber ? last.value : undefined,
        ours: sqlReward(agent.rows, gold.rows),
        agentForm: agent.form,
        goldForm: gold.form,
      });
    } catch (error) {
      errors.push(`#${key}: ${(error as Error).message}`);
    }
  }
  return { rel, episodes: entries.length, withInfo, checked, errors };
}

const mismatches = (check: FileCheck) =>
  check.checked
    .filter((c) => !Object.is(c.ours.value, c.logged))
    .map((c) => ({
      key: c.key,
      logged: c.logged,
      ours: c.ours.value,
      parts: c.ours.parts,
      rule: c.ours.details.rule,
    }));

function tally(check: FileCheck): string {
  const rules = new Map<SqlRewardRule, number>();
  for (const c of check.checked) rules.set(c.ours.details.rule, (rules.get(c.ours.details.rule) ?? 0) + 1);
  const negative = check.checked.filter((c) => c.ours.value < 0).length;
  return `${[...rules].map(([rule, n]) => `${rule} ${n}`).join(', ')}; ${negative} negative`;
}

const files = {
  planSolve: 'gpt-3.5/ic_sql_plan_solve.json',
  refine: 'gpt-3.5/ic_sql_plan_solve_refine_3_turns.json',
  human: 'human/ic_sql_multiturn_human_10_turns.json',
};

const load = (rel: string) => (mirrorPresent && existsSync(join(resultsDir, rel)) ? checkFile(rel) : null);
const planSolve = load(files.planSolve);
const refine = load(files.refine);
const human = load(files.human);

if (noMirror) {
  describeMissing('recorded SQL results', noMirror);
} else {
  describe(`recorded SQL results in ${resultsDir}`, () => {
    it('finds the Plan & Solve, refine and human result files', () => {
      for (const rel of Object.values(files)) expect(existsSync(join(resultsDir, rel)), rel).toBe(true);
    });

    describe(files.planSolve, () => {
      it('has 1034 episodes, 1033 of them with info (one episode logged no info)', () => {
        expect(planSolve?.episodes).toBe(1034);
        expect(planSolve?.withInfo).toBe(1033);
      });

      it('reads every logged result set; all Python-text ones re-render character for character', () => {
        expect(planSolve?.errors).toEqual([]);
        const forms = planSolve?.checked.flatMap((c) => [c.agentForm, c.goldForm]) ?? [];
        expect(forms.filter((f) => f === 'python-text').length).toBeGreaterThan(1500);
        expect(forms.filter((f) => f === 'json').length).toBeGreaterThan(0);
      });

      it(`reproduces info.reward for 1033 of 1033 episodes (${planSolve ? tally(planSolve) : '-'})`, () => {
        expect(planSolve?.checked.length).toBe(1033);
        expect(planSolve && mismatches(planSolve)).toEqual([]);
        // Every rule is exercised, the path through Kendall's tau and negative rewards included.
        expect(planSolve && tally(planSolve)).toBe(
          'no-overlap 192, not-a-result-set 316, tau-undefined 291, tau-scaled 195, both-empty 39; 4 negative',
        );
        expect(planSolve?.checked.filter((c) => c.ours.value > 0 && c.ours.value < 1).length).toBeGreaterThan(
          0,
        );
      });

      it('info.reward is the last turn reward in every episode', () => {
        const differ = planSolve?.checked.filter((c) => c.lastTurn !== c.logged).map((c) => c.key);
        expect(differ).toEqual([]);
      });
    });

    describe(files.refine, () => {
      it(`reproduces info.reward for 44 of 44 episodes (${refine ? tally(refine) : '-'})`, () => {
        expect(refine?.errors).toEqual([]);
        expect(refine?.episodes).toBe(44);
        expect(refine?.checked.length).toBe(44);
        expect(refine && mismatches(refine)).toEqual([]);
      });
    });

    describe(files.human, () => {
      it(`reproduces the reward of 15 of 15 human episodes (${human ? tally(human) : '-'})`, () => {
        expect(human?.errors).toEqual([]);
        expect(human?.episodes).toBe(15);
        expect(human?.checked.length).toBe(15);
        expect(human && mismatches(human)).toEqual([]);
        expect(human?.checked.filter((c) => c.ours.value === 1).length).toBe(13);
      });

      it('the top-level reward equals info.reward in every human episode', () => {
        const json = parseJsonLossless(readFileSync(join(resultsDir, files.human), 'utf8'));
        const differ = Object.entries(isObject(json) ? json : {}).filter(([, episode]) => {
          if (!isObject(episode) || !isObject(episode.info)) return true;
          const top = episode.reward;
          const inner = episode.info.reward;
          return !(top instanceof JsonNumber && inner instanceof JsonNumber && top.value === inner.value);
        });
        expect(differ.map(([key]) => key)).toEqual([]);
      });
    });
  });
}
