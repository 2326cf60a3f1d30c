import type { Task } from '../../core/task.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { isScorerLimit } from '../../sandbox/scorer-limit-error.js';
import { type GitChange, gitStatusChanges } from './git-status-changes.js';
import { bashGoldCommand } from './nl2bash-errata.js';
import { settleBackgroundJobs } from './settle-background-jobs.js';
import { upstreamCommandLine } from './upstream-command.js';
import { whileStopped } from './while-stopped.js';

/** What the gold did in the pristine evaluation sandbox. */
export interface GoldRun {
  readonly output: string | null;
  readonly changes: readonly GitChange[];
  readonly corrupt: boolean;
  /** The evaluator's diff met a scorer bound (the gold's own doing): why. */
  readonly limit?: string;
  /**
   * No process of the gold's was left once its background jobs were waited for: nothing but the
   * sandbox's init and the shell's controller (which runs nothing unasked) runs in the evaluation
   * sandbox, so its files can be walked without stopping it, now and at scoring.
   */
  readonly idle: boolean;
}

/** Digests of the gold's files by path (`/a/b`); null when the walk met a scorer bound. */
export type GoldDigests = Readonly<Record<string, string | null>> | null;

/** The statuses whose paths the content check compares (upstream's added, untracked and copied). */
export const COMPARED_STATUSES: readonly string[] = ['A', '??', 'C'];

/**
 * Runs the task's gold in the (pristine) evaluation sandbox's shell, waits for its background jobs,
 * and reads what it changed, with the sandbox stopped if any of them is still running. `upstream`:
 * the gold's command line mangled as upstream's evaluator ran it (`bash -c "<gold>"` split by
 * `shlex`), in a fresh process from `/`, the same as the agent's actions in that mode (so both
 * sandboxes hold the same processes while it runs); one that `shlex` cannot split is a corrupt gold
 * with no output, as there.
 */
export async function runGold(
  evaluator: Sandbox,
  task: Task,
  options: { timeoutMs: number; ignored: ReadonlySet<string>; layers: readonly string[]; upstream?: boolean },
): Promise<GoldRun> {
  const command = bashGoldCommand(task);
  const gold = command !== undefined && options.upstream ? upstreamCommandLine(command) : command;
  if (gold === undefined || gold === null) return { output: null, changes: [], corrupt: true, idle: true };
  const result = options.upstream
    ? await evaluator.exec(gold, { cwd: '/', timeoutMs: options.timeoutMs })
    : await evaluator.session().run(gold, { timeoutMs: options.timeoutMs });
  const idle = await settleBackgroundJobs(evaluator);
  const output = result.timedOut ? null : result.output;
  try {
    const diff = await whileStopped(evaluator, () => evaluator.diff(), idle);
    const changes = gitStatusChanges(diff, options.ignored, options.layers);
    return { output, changes, corrupt: result.timedOut, idle };
  } catch (error) {
    if (!isScorerLimit(error)) throw error;
    return { output, changes: [], corrupt: true, limit: `gold: ${error.message}`, idle };
  }
}

/**
 * The digests of every file of the gold's that the content check may compare, read once with the
 * evaluation sandbox stopped (unless the gold left it idle): the gold's result as data, which the
 * copies of a forked episode score against without an evaluation sandbox of their own.
 */
export async function goldDigests(evaluator: Sandbox, gold: GoldRun): Promise<GoldDigests> {
  const paths = [
    ...new Set(
      gold.changes
        .filter((change) => COMPARED_STATUSES.includes(change.status))
        .map((change) => `/${change.path}`),
    ),
  ];
  if (paths.length === 0) return {};
  try {
    return await whileStopped(evaluator, () => evaluator.digest(paths), gold.idle);
  } catch (error) {
    if (isScorerLimit(error)) return null;
    throw error;
  }
}
