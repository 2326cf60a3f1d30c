import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { reapAllNow } from '../sandbox/exit-cleanup.js';
import { reportError } from './cli-error.js';
import { registerBench } from './commands/bench-command.js';
import { registerDoctor } from './commands/doctor-command.js';
import { registerExec } from './commands/exec-command.js';
import { EXIT } from './exit-codes.js';

function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/** Builds the command tree; one file per subcommand. */
export function createProgram(): Command {
  const program = new Command('intercode')
    .description('Interactive coding benchmarks as reinforcement-learning environments')
    .version(packageVersion())
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(`intercode: ${text.replace(/^error: /, '')}`) });
  registerExec(program);
  registerDoctor(program);
  registerBench(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

function onInterrupt(): void {
  reapAllNow();
  process.stderr.write('\nintercode: interrupted; every sandbox was stopped\n');
  process.exit(EXIT.interrupted);
}

/** Entry point of `bin/intercode`. */
export async function runCli(argv: readonly string[]): Promise<void> {
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
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
