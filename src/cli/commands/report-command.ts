import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import type { EpisodeRecord } from '../../harness/episode-record.js';
import { formatTable } from '../../harness/format-table.js';
import { computeMetrics, type Metrics, metricsByGroup } from '../../harness/metrics.js';

function readEpisodes(directory: string): EpisodeRecord[] {
  const path = join(directory, 'episodes.jsonl');
  if (!existsSync(path)) throw new UsageError(`${directory} is not a run directory (no episodes.jsonl)`);
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line, number) => {
      try {
        return [JSON.parse(line) as EpisodeRecord];
      } catch {
        throw new UsageError(`${path}: line ${number + 1} is not valid JSON`);
      }
    });
}

function row(name: string, metrics: Metrics): string[] {
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  return [
    name,
    String(metrics.n),
    String(metrics.solved),
    percent(metrics.successRate),
    metrics.meanReward.toFixed(3),
    metrics.meanTurns.toFixed(2),
    percent(metrics.errorRate),
  ];
}

const HEADER = ['group', 'n', 'solved', 'success', 'mean reward', 'turns', 'error'];

export function registerReport(program: Command): void {
  program
    .command('report')
    .description(
      'metrics of run directories: success rate, mean reward, turns, error %, overall and per group',
    )
    .argument('<run-dir...>', 'run directories written by `intercode run`')
    .option('--json', 'print the metrics as JSON')
    .action((directories: string[], flags: { json?: boolean }) => {
      const runs = directories.map((directory) => ({ directory, episodes: readEpisodes(directory) }));
      const all = runs.flatMap((run) => run.episodes);
      if (flags.json) {
        const json = runs.map((run) => ({
          directory: run.directory,
          overall: computeMetrics(run.episodes),
          byGroup: metricsByGroup(run.episodes),
        }));
        const combined =
          runs.length > 1 ? { overall: computeMetrics(all), byGroup: metricsByGroup(all) } : undefined;
        process.stdout.write(
          `${JSON.stringify({ runs: json, ...(combined ? { combined } : {}) }, null, 2)}\n`,
        );
        return;
      }
      const blocks: string[] = [];
      for (const run of runs) {
        const groups = Object.entries(metricsByGroup(run.episodes)).map(([group, metrics]) =>
          row(group, metrics),
        );
        const rows = [row('all', computeMetrics(run.episodes)), ...(groups.length > 1 ? groups : [])];
        blocks.push(`${run.directory}\n${formatTable(HEADER, rows)}`);
      }
      if (runs.length > 1) {
        const groups = Object.entries(metricsByGroup(all)).map(([group, metrics]) => row(group, metrics));
        blocks.push(
          `combined (${runs.length} runs)\n${formatTable(HEADER, [row('all', computeMetrics(all)), ...groups])}`,
        );
      }
      process.stdout.write(`${blocks.join('\n\n')}\n`);
    });
}
