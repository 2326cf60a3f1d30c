import type { Command } from 'commander';
import { startViewer } from '../../viewer/viewer-server.js';
import { stopGracefully, untilInterrupted } from '../interrupt.js';
import { portNumber } from '../options.js';

/** The viewer's port when none is given. */
export const DEFAULT_VIEW_PORT = 8100;

interface ViewFlags {
  port: number;
  host: string;
  json?: boolean;
}

/** `intercode view <run-dir>…`: the web viewer of run directories (docs/cli/view.md). */
export function registerView(program: Command): void {
  program
    .command('view')
    .description(
      'serve a local web page showing run directories side by side: figures, plots, episodes and their turns (read-only; updates while a run writes)',
    )
    .argument('<run-dir...>', 'run directories written by `intercode run` (or `serve --out`)')
    .option('--port <port>', `port (0 picks a free one)`, portNumber('--port'), DEFAULT_VIEW_PORT)
    .option(
      '--host <host>',
      'address to bind (anything but loopback shows the runs to your network)',
      '127.0.0.1',
    )
    .option('--json', 'print the listening line as JSON')
    .action(async (directories: string[], flags: ViewFlags) => {
      stopGracefully();
      const viewer = await startViewer({ directories, port: flags.port, host: flags.host });
      process.stdout.write(
        flags.json
          ? `${JSON.stringify({ url: viewer.url, runs: viewer.runs.map((run) => run.directory) })}\n`
          : `intercode view: ${viewer.runs.length} run(s) at ${viewer.url} (Ctrl-C stops)\n`,
      );
      await untilInterrupted();
      await viewer.close();
      process.exitCode = 0;
    });
}
