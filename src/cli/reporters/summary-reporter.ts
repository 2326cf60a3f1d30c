import { computeMetrics, metricsByGroup } from '../../harness/metrics.js';
import type { Reporter, RunEnd } from '../../harness/reporter.js';
import { summaryTable } from '../../harness/summary-table.js';

/**
 * What `intercode run` prints on stdout when the run ends: the metrics table with the run
 * directory, or with `--json` the summary itself.
 */
export class SummaryReporter implements Reporter {
  readonly #json: boolean;

  constructor(options: { json: boolean }) {
    this.#json = options.json;
  }

  onRunEnd({ summary, episodes, outDir, stopReason }: RunEnd): void {
    if (this.#json) {
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      return;
    }
    process.stdout.write(`${summaryTable(computeMetrics(episodes), metricsByGroup(episodes))}\n`);
    if (summary.skipped?.length)
      process.stdout.write(`skipped (unrunnable here): ${summary.skipped.length}\n`);
    if (stopReason !== undefined) process.stdout.write(`stopped before the end: ${stopReason}\n`);
    process.stdout.write(`run directory: ${outDir}\n`);
  }
}
