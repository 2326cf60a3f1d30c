import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { reportError } from './cli-error.js';
import { registerBench } from './commands/bench-command.js';
import { registerDatasets } from './commands/datasets-command.js';
import { registerDoctor } from './commands/doctor-command.js';
import { registerExec } from './commands/exec-command.js';
import { registerExport } from './commands/export-command.js';
import { registerImage } from './commands/image-command.js';
import { registerMcp } from './commands/mcp-command.js';
import { registerPlay } from './commands/play-command.js';
import { registerReport } from './commands/report-command.js';
import { registerRun } from './commands/run-command.js';
import { registerServe } from './commands/serve-command.js';
import { registerWorker } from './commands/worker-command.js';
import { EXIT } from './exit-codes.js';
import { installInterruptHandlers } from './interrupt.js';

function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/** Builds the command tree; one file per subcommand. */
export function createProgram(): Command {
  const program = new Command('intercode')
    .description('Interactive coding benchmarks as reinforcement-learning environments')
    .version(packageVersion())
    .exitOverride()
    // One line per usage error (DESIGN §9), the pointer to --help on the same line.
    .configureOutput({
      outputError: (text, write) =>
        write(`intercode: ${text.replace(/^error: /, '').trimEnd()} (run with --help for usage)\n`),
    });
  registerRun(program);
  registerPlay(program);
  registerReport(program);
  registerExport(program);
  registerExec(program);
  registerDoctor(program);
  registerBench(program);
  registerDatasets(program);
  registerImage(program);
  registerServe(program);
  registerMcp(program);
  registerWorker(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/** Entry point of `bin/intercode`. */
export async function runCli(argv: readonly string[]): Promise<void> {
  installInterruptHandlers();
  // Warnings (e.g. limits that cannot be enforced here) as one line each, in the CLI's own voice.
  process.removeAllListeners('warning');
  process.on('warning', (warning) => process.stderr.write(`intercode: warning: ${warning.message}\n`));
  try {
    await createProgram().parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    process.exitCode = reportError(error);
  }
}
