import { cpus, release } from 'node:os';
import type { Command } from 'commander';
import { writeFileAtomic } from '../../core/atomic-write.js';
import { UsageError } from '../../core/errors.js';
import type { BenchFigure } from '../../harness/bench/bench-figure.js';
import { benchTable } from '../../harness/bench/bench-table.js';
import { runSandboxBench } from '../../harness/bench/sandbox-bench.js';
import { createProviderRegistry } from '../../sandbox/provider-registry.js';
import { positiveInteger } from '../options.js';

interface BenchFlags {
  json?: string;
  backend: string;
  samples: number;
  concurrent: number;
}

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('measure sandbox performance (p50/p95) and check it against the targets')
    .option('--json <file>', 'also write the figures as JSON to this file')
    .option('--backend <list>', 'comma-separated sandbox backends', 'bwrap')
    .option('--samples <n>', 'samples per slow figure (round trips take 10x)', positiveInteger('--samples'), 50)
    .option('--concurrent <n>', 'sandboxes started at once', positiveInteger('--concurrent'), 32)
    .action(async (flags: BenchFlags) => {
      const registry = createProviderRegistry();
      const backends = flags.backend.split(',').map((name) => name.trim());
      for (const backend of backends) {
        if (!registry.has(backend)) throw new UsageError(`--backend: unknown backend "${backend}"`);
      }
      const started = new Date().toISOString();
      const figures: BenchFigure[] = [];
      for (const backend of backends) {
        const provider = registry.get(backend)();
        try {
          figures.push(
            ...(await runSandboxBench(provider, {
              samples: flags.samples,
              concurrent: flags.concurrent,
              idle: 16,
              onProgress: (message) => {
                if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2Kbench ${backend}: ${message}`);
              },
            })),
          );
        } finally {
          await provider.close();
          if (process.stderr.isTTY) process.stderr.write('\r\x1b[2K');
        }
      }
      process.stdout.write(`${benchTable(figures)}\n`);
      if (flags.json) {
        const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model, kernel: release(), node: process.version };
        writeFileAtomic(flags.json, `${JSON.stringify({ started, machine, figures }, null, 2)}\n`);
      }
      if (figures.some((item) => item.pass === false)) process.exitCode = 1;
    });
}
