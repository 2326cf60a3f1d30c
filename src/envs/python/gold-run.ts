import type { Task } from '../../core/task.js';
import { GoldCache } from '../gold-cache.js';
import type { CodeResult, RunReply } from './driver-messages.js';
import { goldOf, setupOf, testsOf } from './mbpp-task-fields.js';

/** What the gold function did on the task's tests, in a fresh interpreter of the evaluation sandbox. */
export interface GoldRun {
  readonly results: readonly CodeResult[];
  /** Time the setup code took, milliseconds. */
  readonly setupMs?: number;
  readonly corrupt: boolean;
  readonly reason?: string;
}

/** Runs the task's setup code, gold and tests (through `run`, one code each) and judges the gold. */
export async function goldRun(
  task: Task,
  run: (codes: readonly string[]) => Promise<RunReply>,
): Promise<GoldRun> {
  const gold = goldOf(task);
  const tests = testsOf(task);
  if (gold === '' || tests.length === 0) {
    return { results: [], corrupt: true, reason: 'the task has no gold code or no tests' };
  }
  const reply = await run([setupOf(task), gold, ...tests]);
  const [setup, definition, ...results] = reply.results;
  const setupMs = setup?.ms ?? 0;
  const failed = [setup, definition, ...results].findIndex((result) => !result?.ok);
  if (failed < 0) return { results, setupMs, corrupt: false };
  const step = failed === 0 ? 'test setup code' : failed === 1 ? 'gold code' : `test ${failed - 1}`;
  return {
    results,
    setupMs,
    corrupt: true,
    reason: `the gold fails its own tests: ${step}: ${reply.results[failed]?.error ?? 'not run'}`,
  };
}

/** The gold's runs of the MBPP tasks this process played (see `GoldCache`). */
const GOLDS = new GoldCache<GoldRun>();

/** The gold cache's key of a task: `setting` names what else the gold's run depends on. */
export function goldKey(task: Task, setting: readonly unknown[]): string {
  return JSON.stringify([...setting, setupOf(task), goldOf(task), testsOf(task)]);
}

/**
 * The gold's run through the gold cache (see `GoldCache.share`; kept unless corrupt); no key (the
 * cache off): `run()`'s.
 */
export function sharedGoldRun(key: string | undefined, run: () => Promise<GoldRun>): Promise<GoldRun> {
  return key === undefined ? run() : GOLDS.share(key, run, (gold) => !gold.corrupt);
}

/** The Python gold cache's figures (see `GoldCache.stats`). */
export function pythonGoldCacheStats(): ReturnType<GoldCache<GoldRun>['stats']> {
  return GOLDS.stats();
}
