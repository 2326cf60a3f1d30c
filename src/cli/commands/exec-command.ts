import type { Command } from 'commander';
import { shellQuote } from '../../core/shell-quote.js';
import { createProviderRegistry } from '../../sandbox/provider-registry.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../../sandbox/sandbox.js';
import { backendOption, imageOption, positiveInteger, positiveNumber } from '../options.js';

interface ExecFlags {
  image?: string;
  backend?: string;
  timeout: number;
  maxOutput: number;
  memory?: number;
  cwd: string;
}

/** Joins argv words into one shell command; a single word is taken as a whole shell command. */
function toCommand(words: readonly string[]): string {
  if (words.length === 1) return words[0]!;
  return words.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : shellQuote(word))).join(' ');
}

export function registerExec(program: Command): void {
  program
    .command('exec')
    .description('run one command in a fresh sandbox, print its output, exit with its exit code')
    .argument('<command...>', 'the command (after --); one argument is run as a shell command line')
    .addOption(imageOption())
    .addOption(backendOption())
    .option(
      '--timeout <seconds>',
      'time limit; the whole process tree is killed after it',
      positiveNumber('--timeout'),
      10,
    )
    .option(
      '--max-output <bytes>',
      'output cap (head and tail are kept)',
      positiveInteger('--max-output'),
      DEFAULT_MAX_OUTPUT_BYTES,
    )
    .option('--memory <MiB>', 'memory limit', positiveInteger('--memory'))
    .option('--cwd <dir>', 'working directory inside the sandbox', '/')
    .action(async (words: string[], flags: ExecFlags) => {
      const provider = createProviderRegistry().get(flags.backend ?? 'bwrap')();
      if (flags.image !== undefined) provider.checkImage(flags.image);
      try {
        const sandbox = await provider.create({
          ...(flags.image ? { image: flags.image } : {}),
          cwd: flags.cwd,
          timeoutMs: flags.timeout * 1000,
          maxOutputBytes: flags.maxOutput,
          ...(flags.memory ? { limits: { memoryBytes: flags.memory * 1024 * 1024 } } : {}),
        });
        const result = await sandbox.session().run(toCommand(words));
        process.stdout.write(result.output);
        if (result.truncated) {
          process.stderr.write(
            `intercode: output truncated: ${result.truncated.originalBytes} bytes in total\n`,
          );
        }
        if (result.timedOut) {
          process.stderr.write(
            `intercode: timed out after ${flags.timeout} s; the process tree was killed\n`,
          );
          process.exitCode = 124;
        } else {
          process.exitCode = result.exitCode ?? 1;
        }
      } finally {
        await provider.close();
      }
    });
}
