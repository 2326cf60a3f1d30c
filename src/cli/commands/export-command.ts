import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { writeFileAtomic } from '../../core/host/atomic-write.js';
import { exportAtif } from '../../harness/export/export-atif.js';
import { readRunDirectory } from '../../harness/run-files/read-run-directory.js';

const FORMATS = ['atif'] as const;

function packageVersion(): string {
  const text = readFileSync(new URL('../../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/** `intercode export <run-dir> --format atif`: the run's episodes as trajectories (docs/cli/export.md). */
export function registerExport(program: Command): void {
  program
    .command('export')
    .description(
      'write the episodes of a run directory in an interchange format: atif (Agent Trajectory Interchange Format v1.7, one trajectory per episode, JSON Lines)',
    )
    .argument('<run-dir>', 'a run directory written by `intercode run`')
    .addOption(new Option('--format <format>', 'the format: atif').choices(FORMATS).makeOptionMandatory())
    .option('--out <file>', 'write to FILE instead of standard output')
    .action((directory: string, flags: { format: (typeof FORMATS)[number]; out?: string }) => {
      const lines = exportAtif(readRunDirectory(directory), packageVersion());
      if (flags.out === undefined) {
        process.stdout.write(lines.join(''));
        return;
      }
      writeFileAtomic(flags.out, lines.join(''));
      process.stderr.write(`intercode: wrote ${lines.length} trajectories to ${flags.out}\n`);
    });
}
