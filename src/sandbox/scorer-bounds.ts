/**
 * The bounds of every walk the scorer makes over a sandbox's file system (`diff`, `digest`,
 * `snapshot`): the agent controls the tree walked, so its cost must not be the agent's to choose.
 * A walk past a bound ends with a `ScorerLimitError`, which an environment turns into reward 0 with
 * the reason recorded (`scoreLimit`), never into an infrastructure error.
 */
export interface ScorerBounds {
  /** Wall time of one walk; the walking process is killed once it has passed. */
  readonly timeoutMs: number;
  /** Directory entries one walk may visit (upper-layer entries for `diff`, every entry for `digest`). */
  readonly maxEntries: number;
  /** Address space of the walking process, bytes. */
  readonly memoryBytes: number;
}

export const DEFAULT_SCORER_BOUNDS: ScorerBounds = {
  timeoutMs: 10_000,
  maxEntries: 100_000,
  memoryBytes: 512 * 1024 * 1024,
};

/** A `snapshot` (how task file systems are built) copies a whole layer: it gets more time. */
export const SNAPSHOT_TIMEOUT_MS = 120_000;

function positive(value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const number = Number(value);
  return Number.isFinite(number) && number > 0 ? Math.floor(number) : fallback;
}

/**
 * The bounds in force: the defaults, each replaced by its environment variable when set to a
 * positive number (`INTERCODE_SCORER_TIMEOUT_MS`, `INTERCODE_SCORER_MAX_ENTRIES`,
 * `INTERCODE_SCORER_MEMORY_MB`). Read at each walk, so a test or a long-lived server can change them.
 */
export function scorerBounds(env: NodeJS.ProcessEnv = process.env): ScorerBounds {
  return {
    timeoutMs: positive(env.INTERCODE_SCORER_TIMEOUT_MS, DEFAULT_SCORER_BOUNDS.timeoutMs),
    maxEntries: positive(env.INTERCODE_SCORER_MAX_ENTRIES, DEFAULT_SCORER_BOUNDS.maxEntries),
    memoryBytes:
      positive(env.INTERCODE_SCORER_MEMORY_MB, DEFAULT_SCORER_BOUNDS.memoryBytes / 1024 / 1024) * 1024 * 1024,
  };
}
