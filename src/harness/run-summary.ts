import type { EpisodeRecord } from './episode-record.js';
import { computeMetrics, metricsByGroup } from './metrics.js';
import type { RunDescription, RunSummary } from './run-files/run-summary-schema.js';
import { RUN_SUMMARY_VERSION } from './run-files/run-summary-version.js';

export type { RunDescription, RunSummary, SkippedTask } from './run-files/run-summary-schema.js';
export { RUN_SUMMARY_VERSION } from './run-files/run-summary-version.js';

/** The `summary.json` of `episodes` (without `skipped`, which the runner adds). */
export function summarize(
  description: RunDescription,
  episodes: readonly EpisodeRecord[],
  durationMs: number,
  complete: boolean,
): RunSummary {
  const { episodeErrors, ...metrics } = computeMetrics(episodes);
  const byGroup = Object.fromEntries(
    Object.entries(metricsByGroup(episodes)).map(([group, m]) => [
      group,
      { n: m.n, successRate: m.successRate, meanReward: m.meanReward },
    ]),
  );
  return {
    schemaVersion: RUN_SUMMARY_VERSION,
    ...description,
    ...metrics,
    byGroup,
    durationMs,
    episodeErrors,
    complete,
  };
}
