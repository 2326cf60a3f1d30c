/** A known wrong gold flag of an upstream task and the flag that is right. */
export interface GoldErratum {
  readonly taskId: string;
  /** The gold as upstream's task file has it; the erratum applies only to a task with exactly this gold. */
  readonly upstreamGold: string;
  readonly correctedGold: string;
  /** Where the error was reported. */
  readonly source: string;
  readonly reason: string;
}

/**
 * Gold flags of `ctf/picoctf` that upstream got wrong. Applied by default: the gold agent submits the
 * corrected flag and a submission is compared with it.
 */
export const CTF_GOLD_ERRATA: readonly GoldErratum[] = [
  {
    taskId: '15',
    upstreamGold: String.raw`picoCTF{1|/|_4_p34|\|ut_f3bc410e}`,
    correctedGold: String.raw`picoCTF{1|\/|_4_p34|\|ut_f3bc410e}`,
    source: 'upstream issue 25',
    reason: String.raw`the flag that crackme.py decodes spells "|\/|"; the upstream gold lost the backslash`,
  },
];

/** The erratum of a task, if its gold is one that upstream got wrong. */
export function goldErratum(taskId: string, gold: unknown): GoldErratum | undefined {
  return CTF_GOLD_ERRATA.find((erratum) => erratum.taskId === taskId && erratum.upstreamGold === gold);
}
