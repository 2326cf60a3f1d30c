import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { reportError } from './cli-error.js';
import { COMMAND_SUMMARIES, summaryName } from './command-summaries.js';
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

/** The top-level program: name, description, version, one-line usage errors; no subcommand yet. */
function rootProgram(): Command {
  return (
    new Command('intercode')
      .description('Interactive coding benchmarks as reinforcement-learning environments')
      .version(packageVersion())
      .exitOverride()
      // One line per usage error (DESIGN §9), the pointer to --help on the same line.
      .configureOutput({
        outputError: (text, write) =>
          write(`intercode: ${text.replace(/^error: /, '').trimEnd()} (run with --help for usage)\n`),
      })
  );
}

/**
 * Builds the command tree; one file per subcommand. With `only` (the name a command line starts
 * with), just that subcommand is loaded; otherwise all of them.
 */
export async function createProgram(only?: string): Promise<Command> {
  const program = rootProgram();
  const chosen = COMMANDS.filter(([name]) => name === only);
  const registers = await Promise.all((chosen.length > 0 ? chosen : COMMANDS).map(([, load]) => load()));
  for (const register of registers) register(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/**
 * The program for a command line that names no subcommand (top-level help, `--version`, an unknown
 * name): each subcommand only as the top-level help shows it (`COMMAND_SUMMARIES`), none loaded.
 */
export function createSummaryProgram(): Command {
  const program = rootProgram();
  const terms = new Map<string, string>();
  for (const summary of COMMAND_SUMMARIES) {
    const name = summaryName(summary);
    terms.set(name, summary.term);
    program.command(name).description(summary.description).exitOverride();
  }
  const help = program.createHelp();
  program.configureHelp({
    subcommandTerm: (command) => terms.get(command.name()) ?? help.subcommandTerm(command),
  });
  return program;
}

/** The subcommand a command line runs (`run …`, `help run`), if it names one. */
function namedCommand(argv: readonly string[]): string | undefined {
  const named = (word: string | undefined) => COMMANDS.some(([name]) => name === word);
  if (named(argv[0])) return argv[0];
  return argv[0] === 'help' && named(argv[1]) ? argv[1] : undefined;
}

/** Entry point of `bin/intercode`. */
export async function runCli(argv: readonly string[]): Promise<void> {
  installInterruptHandlers();
  // Warnings (e.g. limits that cannot be enforced here) as one line each, in the CLI's own voice.
  process.removeAllListeners('warning');
  process.on('warning', (warning) => process.stderr.write(`intercode: warning: ${warning.message}\n`));
  try {
    const only = namedCommand(argv);
    const program = only === undefined ? createSummaryProgram() : await createProgram(only);
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    process.exitCode = reportError(error);
  }
}
