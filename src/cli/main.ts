import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { reportError } from './cli-error.js';
import { EXIT } from './exit-codes.js';
import { installInterruptHandlers } from './interrupt.js';

function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

type Register = (program: Command) => void;

/**
 * The subcommands in their help order, each loaded on demand: a command's module pulls in what it
 * runs (the queue, the model libraries, the server), so loading them all would cost every command
 * about a second before it starts.
 */
const COMMANDS: ReadonlyArray<readonly [string, () => Promise<Register>]> = [
  ['run', async () => (await import('./commands/run-command.js')).registerRun],
  ['play', async () => (await import('./commands/play-command.js')).registerPlay],
  ['report', async () => (await import('./commands/report-command.js')).registerReport],
  ['export', async () => (await import('./commands/export-command.js')).registerExport],
  ['view', async () => (await import('./commands/view-command.js')).registerView],
  ['exec', async () => (await import('./commands/exec-command.js')).registerExec],
  ['doctor', async () => (await import('./commands/doctor-command.js')).registerDoctor],
  ['bench', async () => (await import('./commands/bench-command.js')).registerBench],
  ['datasets', async () => (await import('./commands/datasets-command.js')).registerDatasets],
  ['image', async () => (await import('./commands/image-command.js')).registerImage],
  ['serve', async () => (await import('./commands/serve-command.js')).registerServe],
  ['mcp', async () => (await import('./commands/mcp-command.js')).registerMcp],
  ['worker', async () => (await import('./commands/worker-command.js')).registerWorker],
];

/**
 * Builds the command tree; one file per subcommand. With `only` (the name a command line starts
 * with), just that subcommand is loaded; otherwise (top-level help, an unknown name) all of them.
 */
export async function createProgram(only?: string): Promise<Command> {
  const program = new Command('intercode')
    .description('Interactive coding benchmarks as reinforcement-learning environments')
    .version(packageVersion())
    .exitOverride()
    // One line per usage error (DESIGN §9), the pointer to --help on the same line.
    .configureOutput({
      outputError: (text, write) =>
        write(`intercode: ${text.replace(/^error: /, '').trimEnd()} (run with --help for usage)\n`),
    });
  const chosen = COMMANDS.filter(([name]) => name === only);
  const registers = await Promise.all((chosen.length > 0 ? chosen : COMMANDS).map(([, load]) => load()));
  for (const register of registers) register(program);
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
    const program = await createProgram(argv[0]);
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    process.exitCode = reportError(error);
  }
}
