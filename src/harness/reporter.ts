import type { EpisodeRecord } from './episode-record.js';
import type { RunDescription, RunSummary } from './run-summary.js';

/** What a reporter is told when a run starts. */
export interface RunStart {
  readonly description: RunDescription;
  /** The run directory. */
  readonly outDir: string;
  /** Episodes this run will play. */
  readonly total: number;
  /** Episodes a resumed run already had (kept, not played again). */
  readonly alreadyDone: number;
}

/** What a reporter is told when a run ends (also when it was interrupted or stopped early). */
export interface RunEnd {
  readonly summary: RunSummary;
  /** Every finished episode of the run directory (a resumed run's earlier ones too), in task order. */
  readonly episodes: readonly EpisodeRecord[];
  readonly outDir: string;
  readonly interrupted: boolean;
  /** Why the run stopped before its end on its own. */
  readonly stopReason?: string;
}

/**
 * Watches a run: the command line's progress bar, final table and `--json` output are reporters, and
 * so are the server's and the workers' progress feeds. Every method is optional; a reporter must not
 * throw (what it fails to show never stops a run).
 */
export interface Reporter {
  onRunStart?(start: RunStart): void;
  onEpisodeEnd?(record: EpisodeRecord): void;
  onRunEnd?(end: RunEnd): void;
}
