import { joinedGold, type Task } from '../../core/task.js';

/** A known gold of an upstream NL2Bash task that cannot serve as the reference, and the one used instead. */
export interface BashGoldErratum {
  /** The task's file system (`meta.fileSystem`) and its index in that file system's task file. */
  readonly fileSystem: string;
  readonly index: number;
  /** The gold as upstream's task file has it; the erratum applies only to a task with exactly this gold. */
  readonly upstreamGold: string;
  readonly correctedGold: string;
  readonly source: string;
  readonly reason: string;
}

/**
 * NL2Bash golds corrected by default, in both modes (in upstream compatibility mode the corrected
 * gold is mangled as any other and fails the same way upstream's did). fs1/55 runs `grep -r` from
 * `/`: it reads `/proc` (every `/proc/<pid>/pagemap` is 256 GiB of zeros) and `/sys`, and ends only
 * at the gold's time limit, in upstream's container too (checked: more than 20 s). The corrected gold
 * leaves the two kernel file systems out; everything else it reads is the same.
 */
export const NL2BASH_GOLD_ERRATA: readonly BashGoldErratum[] = [
  {
    fileSystem: 'fs1',
    index: 55,
    upstreamGold: `grep -r Hello * | awk '{split($1, path, ":"); print path[1]}' | xargs -I{} dirname {}`,
    correctedGold: `grep -r --exclude-dir=proc --exclude-dir=sys Hello * | awk '{split($1, path, ":"); print path[1]}' | xargs -I{} dirname {}`,
    source: 'intercode (docs/environments/bash.md#gold-errata)',
    reason:
      'run from /, the gold reads /proc and /sys (each /proc/<pid>/pagemap is 256 GiB of zeros) and never ends; the corrected gold leaves those two kernel file systems out',
  },
];

/** The erratum of an NL2Bash task, if its gold is one listed in {@link NL2BASH_GOLD_ERRATA}. */
export function bashGoldErratum(task: Task): BashGoldErratum | undefined {
  const fileSystem = task.meta.fileSystem;
  if (typeof fileSystem !== 'string') return undefined;
  // A list gold is one command line joined with `;`, as upstream does.
  const gold = joinedGold(task, ';');
  return NL2BASH_GOLD_ERRATA.find(
    (erratum) =>
      erratum.fileSystem === fileSystem &&
      erratum.upstreamGold === gold &&
      (task.id === String(erratum.index) || task.id === `${fileSystem}/${erratum.index}`),
  );
}

/** The command line the gold runs (and the gold agent plays): the corrected gold of an erratum, else the task's. */
export function bashGoldCommand(task: Task): string | undefined {
  return bashGoldErratum(task)?.correctedGold ?? joinedGold(task, ';');
}

/** What a reset tells about the task's gold: the one used, and the erratum when there is one. */
export function bashGoldInfo(task: Task): Record<string, unknown> {
  const erratum = bashGoldErratum(task);
  if (!erratum) return { gold: task.gold };
  const { correctedGold, upstreamGold, source, reason } = erratum;
  return { gold: correctedGold, erratum: { gold: correctedGold, upstreamGold, source, reason } };
}
