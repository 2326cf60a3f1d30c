import { type Command, Option } from 'commander';
import { UsageError } from '../../core/errors.js';
import { formatReport, reportJson } from '../../harness/report-format.js';
import { readRunDirectory } from '../../harness/run-files/read-run-directory.js';
import { combinedReport, runReport } from '../../harness/run-report.js';

const FORMATS = ['table', 'md', 'json', 'html'] as const;
type ReportFormat = (typeof FORMATS)[number];

/** `intercode report <run-dir>…`: the runs' figures beside the paper's (docs/cli/report.md). */
export function registerReport(program: Command): void {
  program
    .command('report')
    .description(
      "metrics of run directories (success, first-turn success, turns, error %, tokens, cost) overall and per group, beside the paper's figures for the same setting",
    )
    .argument('<run-dir...>', 'run directories written by `intercode run`')
    .addOption(
      new Option(
        '--format <format>',
        "output: table (default), md (Markdown), json, or html (one self-contained page with the viewer's figures and plots)",
      ).choices(FORMATS),
    )
    .option('--json', 'print the metrics as JSON (same as --format json)')
    .action(async (directories: string[], flags: { json?: boolean; format?: ReportFormat }) => {
      if (flags.json && flags.format !== undefined && flags.format !== 'json') {
        throw new UsageError(`--json and --format ${flags.format} disagree: pass one of them`);
      }
      const format: ReportFormat = flags.json ? 'json' : (flags.format ?? 'table');
      if (format === 'html') {
        const { htmlReport } = await import('../../viewer/html-report.js');
        process.stdout.write(htmlReport(directories));
        return;
      }
      const runs = directories.map(readRunDirectory);
      const reports = runs.map(runReport);
      const combined = runs.length > 1 ? combinedReport(runs) : undefined;
      process.stdout.write(
        format === 'json' ? reportJson(reports, combined) : formatReport(reports, combined, format),
      );
    });
}
