import type { Task } from '../../core/task.js';
import type { Sandbox, SandboxSpec } from '../../sandbox/sandbox.js';
import { GoldCache } from '../gold-cache.js';
import type { FullBashBoxes } from './bash-boxes.js';
import { type GoldDigests, type GoldRun, goldDigests, runGold } from './gold-run.js';
import { bashGoldCommand } from './nl2bash-errata.js';

/** A Bash task's gold result as data: what the gold did, and the digests of its files. */
interface SharedGold {
  readonly run: GoldRun;
  readonly digests: GoldDigests;
}

/** The gold's results of the Bash tasks this process played (see `GoldCache`). */
const GOLDS = new GoldCache<SharedGold>();

/** The gold of an episode: its run, and (once read, or kept) the digests of its files. */
export interface BashGold {
  readonly run: Promise<GoldRun>;
  readonly digests: Promise<GoldDigests> | undefined;
}

/**
 * Reads the digests of a gold's files once it has run (the evaluation sandbox stopped meanwhile);
 * `failed` runs when that read fails, for the caller to forget it.
 */
export function readGoldDigests(
  evaluator: Sandbox,
  run: Promise<GoldRun>,
  failed: (read: Promise<GoldDigests>) => void,
): Promise<GoldDigests> {
  const read = run.then((gold) => goldDigests(evaluator, gold));
  read.catch(() => failed(read));
  return read;
}

/** How an env runs its golds: the sandboxes' spec, the gold's limit, upstream's mangling, the cache. */
export interface BashGoldSetting {
  readonly spec: SandboxSpec;
  readonly timeoutMs: number;
  readonly upstream: boolean;
  /** Top-level paths left out of the file diff (upstream's `.gitignore`). */
  readonly ignored: ReadonlySet<string>;
  /** Whether the gold cache is on (`goldCacheEnabled`). */
  readonly cache: boolean;
}

/** What the gold's result depends on, as the cache's key: undefined when the cache is off or there is no gold. */
function goldKey(provider: string, task: Task, setting: BashGoldSetting): string | undefined {
  const command = setting.cache ? bashGoldCommand(task) : undefined;
  if (command === undefined) return undefined;
  const { spec, timeoutMs, upstream, ignored } = setting;
  return JSON.stringify([provider, spec, timeoutMs, upstream, [...ignored].sort(), command]);
}

/**
 * Runs the task's gold in the pair's evaluation sandbox, reset first unless pristine. Only golds run
 * there (the agent's actions never do): its reset is trusted (`SandboxResetOptions.trusted`), so a
 * backend may keep its instance when the last gold changed nothing.
 */
async function runInEvaluator(boxes: FullBashBoxes, task: Task, setting: BashGoldSetting): Promise<GoldRun> {
  if (!boxes.evaluatorPristine) await boxes.evaluator.reset({ trusted: true });
  boxes.evaluatorPristine = false;
  return runGold(boxes.evaluator, task, {
    timeoutMs: setting.timeoutMs,
    ignored: setting.ignored,
    layers: boxes.layers,
    upstream: setting.upstream,
  });
}

/**
 * The gold of an episode. With the gold cache on (see `GoldCache.share`): the result kept from an
 * earlier episode of the same key or that of a run under way for it, which leaves this pair's
 * evaluation sandbox untouched (pristine); else the gold run there, and the digests of its files
 * read as soon as it has run (as a fork does), kept unless the gold failed (a time limit, a scorer
 * bound). With the cache off: the gold run alone, the digests read by scoring as it needs them.
 * `digestsFailed`: see {@link readGoldDigests}.
 */
export function startBashGold(
  boxes: FullBashBoxes,
  task: Task,
  setting: BashGoldSetting,
  digestsFailed: (read: Promise<GoldDigests>) => void,
): BashGold {
  const key = goldKey(boxes.evaluator.provider, task, setting);
  if (key === undefined) {
    const run = runInEvaluator(boxes, task, setting);
    run.catch(() => {});
    return { run, digests: undefined };
  }
  const shared = GOLDS.share(
    key,
    async () => {
      const run = await runInEvaluator(boxes, task, setting);
      return { run, digests: await goldDigests(boxes.evaluator, run) };
    },
    (gold) => !gold.run.corrupt && gold.run.limit === undefined && gold.digests !== null,
  );
  const run = shared.then((gold) => gold.run);
  const digests = shared.then((gold) => gold.digests);
  run.catch(() => {});
  digests.catch(() => digestsFailed(digests));
  return { run, digests };
}

/** The Bash gold cache's figures (see `GoldCache.stats`). */
export function bashGoldCacheStats(): ReturnType<GoldCache<SharedGold>['stats']> {
  return GOLDS.stats();
}
