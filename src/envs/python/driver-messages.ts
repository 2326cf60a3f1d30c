/** The driver's replies and the options of its requests (see `python-interpreter.ts`). */

/** What one piece of code did, as the driver reports it. */
export interface CodeResult {
  /** Standard output, stripped as upstream did; null when the code raised (upstream had no `output` then). */
  readonly output: string | null;
  /** `Error: <exception>` when the code raised, otherwise its stripped standard error. */
  readonly error: string;
  /** No exception, no timeout. */
  readonly ok: boolean;
  /** Standard output even when the code raised. */
  readonly raw_output?: string;
  /** Upstream's print-wrapping rule could not parse the action (`Error executing action: …`). */
  readonly action_error?: boolean;
  readonly timed_out?: boolean;
  /** The output was longer than the cap: head and tail were kept. */
  readonly truncated?: boolean;
  /** Bytes written to stdout and stderr together. */
  readonly bytes?: number;
  /** The process running the code died (or was killed). */
  readonly died?: boolean;
  /** Time the code took, milliseconds. */
  readonly ms?: number;
  /** A call's result in the tagged plain form of `python-values.py` (absent when it raised). */
  readonly value?: unknown;
  /** What a call wrote to stdout and stderr, unstripped. */
  readonly stdout?: string;
  readonly stderr?: string;
}

export interface RunReply {
  readonly results: readonly CodeResult[];
  /** The agent's interpreter was replaced by a fresh one: its globals are gone. */
  readonly restarted: boolean;
  /** Why the worker stopped, when it did. */
  readonly note: string | null;
  /** A judge's run: the speculated answers it used, and whether a call differed from them. */
  readonly used?: number | null;
  readonly diverged?: boolean;
}

/**
 * Where codes run: the agent's interpreter, a throw-away copy of it, a fresh throw-away one, or a
 * fresh judge (whose undefined names are the agent's functions, asked through `onCall`).
 */
export type RunTarget = 'agent' | 'copy' | 'fresh' | 'judge';

/** A judge's question for the agent's side, and the answer it gets (see `python-values.py`). */
export type JudgeCall = unknown;
export type JudgeAnswer =
  | { readonly spec: readonly unknown[] }
  | { readonly value: unknown; readonly out: string; readonly err: string }
  | { readonly exc: string; readonly out: string; readonly err: string };

export interface RunOptions {
  /** Apply upstream's action rule (print the value of an expression) to each code. */
  readonly wrap: boolean;
  /** Time limit of each code, or one per code. */
  readonly timeoutMs: number | readonly number[];
  readonly maxOutputBytes: number;
  /** `copy`: keep the copy after the codes, as the probe that answers `call` until the next request. */
  readonly stay?: boolean;
  /**
   * `copy` with `stay`, for a submission that ends the episode: no copy is made; the agent's worker
   * itself runs the codes and answers the calls, and ends with the probe (the agent's next run starts
   * a fresh worker and says so: `restarted`). Saves the copy's fork and its first writes.
   */
  readonly spend?: boolean;
  /**
   * `copy` with `stay`: the last code's place runs the calls of `names` that `tests` make with literal
   * arguments, ahead of the judge; its result's `value` lists them (see `speculate` in the driver).
   */
  readonly speculate?: { readonly tests: readonly string[]; readonly names: readonly string[] };
  /** `judge`: the name that stands for the submitted function, even where it shadows a builtin. */
  readonly proxy?: string;
  /** `judge`: answers the judge's calls (each answer is sent back before the judge goes on). */
  readonly onCall?: (call: JudgeCall) => Promise<JudgeAnswer>;
  /** `agent`, `copy`: whose worker, by agent key (default `'0'`, the one a reset makes; see `fork`). */
  readonly agent?: string;
}

/** The copies a `fork` made: their agent keys, and what they lack of the original (sentences). */
export interface ForkReply {
  readonly agents: readonly string[];
  readonly notCopied: readonly string[];
  /** The original's worker was lost before the fork and replaced: the copies have fresh globals too. */
  readonly restarted: boolean;
}
