import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, Option } from 'commander';
import { UsageError } from '../../core/errors.js';
import { type EpisodeRecord, readEpisodeRecords } from '../../harness/episode-record.js';
import { formatTable } from '../../harness/format-table.js';
import { formatMarkdownTable } from '../../harness/markdown-table.js';
import { computeMetrics, type Metrics, metricsByGroup } from '../../harness/metrics.js';
import { SUMMARY_HEADER, summaryRows } from '../../harness/summary-table.js';

const FORMATS = ['table', 'md', 'json'] as const;
type ReportFormat = (typeof FORMATS)[number];

interface RunEpisodes {
  readonly directory: string;
  readonly episodes: readonly EpisodeRecord[];
}

/** The checked episodes of a run directory; a folder without `episodes.jsonl` is a usage error. */
function readEpisodes(directory: string): EpisodeRecord[] {
  const path = join(directory, 'episodes.jsonl');
  if (!existsSync(path)) throw new UsageError(`${directory} is not a run directory (no episodes.jsonl)`);
  return readEpisodeRecords(path);
}

/** Overall and per-group metrics of each run, and of all runs together when there are several. */
function reportJson(runs: readonly RunEpisodes[]): string {
  const all = runs.flatMap((run) => run.episodes);
  const json = runs.map((run) => ({
    directory: run.directory,
    overall: computeMetrics(run.episodes),
    byGroup: metricsByGroup(run.episodes),
  }));
  const combined =
    runs.length > 1 ? { overall: computeMetrics(all), byGroup: metricsByGroup(all) } : undefined;
  return `${JSON.stringify({ runs: json, ...(combined ? { combined } : {}) }, null, 2)}\n`;
}

/**
 * One titled table per run (groups listed when there are several), then a combined one (every
 * group listed) when there are several runs: plain text, or Markdown with `##` titles.
 */
function reportTables(runs: readonly RunEpisodes[], format: 'table' | 'md'): string {
  const block = (title: string, overall: Metrics, byGroup: Record<string, Metrics>, everyGroup: boolean) => {
    const rows = summaryRows(overall, byGroup, { everyGroup });
    return format === 'md'
      ? `## ${title}\n\n${formatMarkdownTable(SUMMARY_HEADER, rows)}`
      : `${title}\n${formatTable(SUMMARY_HEADER, rows)}`;
  };
  const blocks = runs.map((run) =>
    block(run.directory, computeMetrics(run.episodes), metricsByGroup(run.episodes), false),
  );
  if (runs.length > 1) {
    const all = runs.flatMap((run) => run.episodes);
    blocks.push(block(`combined (${runs.length} runs)`, computeMetrics(all), metricsByGroup(all), true));
  }
  return `${blocks.join('\n\n')}\n`;
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description(
      'metrics of run directories: success rate, mean reward, turns, error %, overall and per group',
    )
    .argument('<run-dir...>', 'run directories written by `intercode run`')
    .addOption(
      new Option('--format <format>', 'output: table (default), md (Markdown) or json').choices(FORMATS),
    )
    .option('--json', 'print the metrics as JSON (same as --format json)')
    .action((directories: string[], flags: { json?: boolean; format?: ReportFormat }) => {
      if (flags.json && flags.format !== undefined && flags.format !== 'json') {
        throw new UsageError(`--json and --format ${flags.format} disagree: pass one of them`);
      }
      const format: ReportFormat = flags.json ? 'json' : (flags.format ?? 'table');
      const runs = directories.map((directory) => ({ directory, episodes: readEpisodes(directory) }));
      process.stdout.write(format === 'json' ? reportJson(runs) : reportTables(runs, format));
    });
}
