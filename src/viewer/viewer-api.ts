/**
 * What the viewer's server sends its page (`intercode view`, docs/cli/view.md): plain JSON types,
 * shared by the server (`src/viewer/`) and the page (`viewer/src/`), which imports them as types only.
 */
import type { Metrics } from '../harness/metrics.js';
import type { PaperComparison, ReportSetting } from '../harness/run-report.js';

/** A line of `episodes.jsonl` the viewer could not read, with why. */
export interface SkippedLine {
  /** 1-based line number. */
  readonly line: number;
  readonly reason: string;
}

/** One point of the paper's "success rate by turn" plot: the share of episodes solved by turn `turn`. */
export interface TurnPoint {
  readonly turn: number;
  /** Percent of the run's scored episodes solved at or before `turn`. */
  readonly solvedPercent: number;
}

/** A run as the runs page shows it: its setting, figures, plots' data and reading state. */
export interface RunInfo {
  /** Position of the run in the command's arguments: its id in URLs. */
  readonly id: number;
  readonly directory: string;
  /** A short name for columns and legends (the directory's last parts). */
  readonly name: string;
  readonly setting: ReportSetting;
  /** The setting in one line, as `intercode report` prints it. */
  readonly settingText: string;
  readonly overall: Metrics;
  readonly byGroup: Readonly<Record<string, Metrics>>;
  readonly paper: readonly PaperComparison[];
  readonly successByTurn: readonly TurnPoint[];
  /** Episodes by maxReward, ten bins of 0.1 (the last includes 1.0). */
  readonly rewardBins: readonly number[];
  /** Episodes read (valid lines), errors included. */
  readonly episodes: number;
  /** Lines skipped, the first few with their reasons. */
  readonly skipped: number;
  readonly skippedLines: readonly SkippedLine[];
  /** The run has written `summary.json` and says it is complete. */
  readonly complete: boolean;
  /** Bumped each time new episodes were read: the page refetches when it changes. */
  readonly version: number;
}

/** What an episode ended as, for filters. */
export type EpisodeStatus = 'solved' | 'failed' | 'error' | 'truncated';

/** An episode as a list row: enough to filter, sort and draw the row, never its turns. */
export interface EpisodeRow {
  /** Position among the run's valid episodes (0-based): its id in URLs. */
  readonly id: number;
  readonly taskId: string;
  readonly index: number;
  readonly sample: number;
  readonly group: string;
  /** The query's first 240 characters. */
  readonly query: string;
  readonly status: EpisodeStatus;
  readonly reward: number;
  readonly turns: number;
  readonly tokens: number;
  readonly costUsd: number | null;
  readonly durationMs: number;
  readonly goldCorrupt: boolean;
}

export const SORT_KEYS = ['id', 'taskId', 'reward', 'turns', 'tokens', 'durationMs'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** Filters and order of an episode list (each a URL parameter of `/api/runs/:id/episodes` and of the page). */
export interface EpisodeQuery {
  readonly status?: EpisodeStatus;
  readonly group?: string;
  /** Case-insensitive text in the query, the actions or the observations. */
  readonly text?: string;
  readonly sort?: SortKey;
  readonly descending?: boolean;
  /** Only episodes whose outcome differs in this other run (same task and sample). */
  readonly versus?: number;
  readonly offset?: number;
  readonly limit?: number;
}

/** A page of an episode list. */
export interface EpisodePage {
  /** Episodes that match, in all. */
  readonly total: number;
  readonly offset: number;
  readonly rows: readonly EpisodeRow[];
  /** The groups of the run, for the group filter. */
  readonly groups: readonly string[];
}

/** Where an episode is in a filtered list (`/api/runs/:id/neighbours/:episode?…`). */
export interface EpisodeNeighbours {
  /** 0-based, or null when the episode is not in the list (the filter excludes it). */
  readonly position: number | null;
  readonly total: number;
  readonly previous: number | null;
  readonly next: number | null;
}

/** The list of runs, with the server's reading state. */
export interface RunsResponse {
  readonly runs: readonly RunInfo[];
}
