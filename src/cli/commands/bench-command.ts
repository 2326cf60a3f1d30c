import { cpus, release } from 'node:os';
import type { Command } from 'commander';
import { writeFileAtomic } from '../../core/atomic-write.js';
import { UsageError } from '../../core/errors.js';
import { resolveDataset } from '../../datasets/resolve-dataset.js';
import { createEnvRegistry } from '../../envs/env-registry.js';
import type { BenchFigure } from '../../harness/bench/bench-figure.js';
import { benchTable } from '../../harness/bench/bench-table.js';
import { runEnvBench } from '../../harness/bench/env-bench.js';
import { runSandboxBench } from '../../harness/bench/sandbox-bench.js';
import { createProviderRegistry } from '../../sandbox/provider-registry.js';
import { positiveInteger } from '../options.js';

interface BenchFlags {
  json?: string;
  only?: string;
  bashDataset: string;
  sqlDataset: string;
  engine: string;
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
    .option(
      '--samples <n>',
      'samples per slow figure (round trips take 10x)',
      positiveInteger('--samples'),
      50,
    )
    .option('--concurrent <n>', 'sandboxes started at once', positiveInteger('--concurrent'), 32)
    .option('--only <groups>', 'comma-separated figure groups: sandbox, bash, sql')
    .option('--bash-dataset <id>', 'dataset of the Bash episode figures', 'demo/bash')
    .option('--sql-dataset <id>', 'dataset of the SQL episode figures', 'spider/dev')
    .option('--engine <list>', 'comma-separated SQL engines of the SQL figures', 'sqlite')
    .action(async (flags: BenchFlags) => {
      const registry = createProviderRegistry();
      const backends = flags.backend.split(',').map((name) => name.trim());
      for (const backend of backends) {
        if (!registry.has(backend)) throw new UsageError(`--backend: unknown backend "${backend}"`);
      }
      const groups = new Set((flags.only ?? 'sandbox,bash,sql').split(',').map((name) => name.trim()));
      for (const group of groups) {
        if (!['sandbox', 'bash', 'sql'].includes(group)) {
          throw new UsageError(`--only: unknown group "${group}" (known: sandbox, bash, sql)`);
        }
      }
      const started = new Date().toISOString();
      const figures: BenchFigure[] = [];
      const envs = createEnvRegistry();
      for (const backend of backends) {
        const provider = registry.get(backend)();
        const onProgress = (message: string) => {
          if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2Kbench ${backend}: ${message}`);
        };
        try {
          if (groups.has('sandbox')) {
            figures.push(
              ...(await runSandboxBench(provider, {
                samples: flags.samples,
                concurrent: flags.concurrent,
                idle: 16,
                onProgress,
              })),
            );
          }
          if (groups.has('bash')) {
            const dataset = await resolveDataset(flags.bashDataset, { env: 'bash' });
            const bash = envs.get('bash');
            const factory = await bash.open({ dataset, provider });
            figures.push(
              ...(await runEnvBench({
                backend,
                group: `bash (${dataset.id})`,
                tasks: dataset.tasks,
                createEnv: () => factory.create(),
                goldActions: bash.goldActions,
                samples: flags.samples * 2,
                concurrency: [1, 2],
                targets: {
                  episode: { op: '<=', value: 50, stat: 'p50' },
                  throughput: { 2: { op: '>=', value: 20, stat: 'p50' } },
                },
                onProgress,
              })),
            );
          }
          if (groups.has('sql')) {
            const dataset = await resolveDataset(flags.sqlDataset, { env: 'sql' });
            const sql = envs.get('sql');
            // Warm-up: one task per database (its sessions open); measured: every other task, once.
            const seen = new Set<unknown>();
            const warmupTasks = dataset.tasks.filter(
              (task) => !seen.has(task.meta.db) && seen.add(task.meta.db),
            );
            const measured = dataset.tasks.filter((task) => !warmupTasks.includes(task));
            for (const engine of flags.engine.split(',').map((name) => name.trim())) {
              const factory = await sql.open({ dataset, provider, engine });
              try {
                figures.push(
                  ...(await runEnvBench({
                    backend: engine,
                    group: `sql (${dataset.id})`,
                    tasks: measured,
                    warmupTasks,
                    createEnv: () => factory.create(),
                    goldActions: sql.goldActions,
                    samples: Math.min(measured.length, flags.samples * 10),
                    concurrency: [1, 2],
                    targets: {
                      ...(engine === 'sqlite'
                        ? { throughput: { 2: { op: '>=' as const, value: 300, stat: 'p50' as const } } }
                        : {}),
                    },
                    onProgress,
                  })),
                );
              } finally {
                await factory.close();
              }
            }
          }
        } finally {
          await provider.close();
          if (process.stderr.isTTY) process.stderr.write('\r\x1b[2K');
        }
      }
      process.stdout.write(`${benchTable(figures)}\n`);
      if (flags.json) {
        const machine = {
          cpus: cpus().length,
          cpuModel: cpus()[0]?.model,
          kernel: release(),
          node: process.version,
        };
        writeFileAtomic(flags.json, `${JSON.stringify({ started, machine, figures }, null, 2)}\n`);
      }
      if (figures.some((item) => item.pass === false)) process.exitCode = 1;
    });
}
