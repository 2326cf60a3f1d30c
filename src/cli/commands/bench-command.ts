import { cpus, release } from 'node:os';
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/host/atomic-write.js';
import { resolveDataset } from '../../datasets/resolve-dataset.js';
import { createEnvRegistry } from '../../envs/env-registry.js';
import type { BenchFigure } from '../../harness/bench/bench-figure.js';
import { benchComparison, benchTable } from '../../harness/bench/bench-table.js';
import { runEnvBench } from '../../harness/bench/env-bench.js';
import { runSandboxBench } from '../../harness/bench/sandbox-bench.js';
import { createProviderRegistry } from '../../sandbox/provider-registry.js';
import { positiveInteger } from '../options.js';

interface BenchFlags {
  json?: string;
  only?: string;
  bashDataset: string;
  sqlDataset: string;
  pythonDataset: string;
  engine: string;
  backend: string;
  samples: number;
  concurrent: number;
  image: string;
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
    .option(
      '--image <image>',
      'sandbox image of the sandbox and bash figures (host, debian, debian:<profile>)',
      'host',
    )
    .option('--only <groups>', 'comma-separated figure groups: sandbox, bash, ctf, sql, python')
    .option('--bash-dataset <id>', 'dataset of the Bash episode figures', 'demo/bash')
    .option('--sql-dataset <id>', 'dataset of the SQL episode figures', 'spider/dev')
    .option('--python-dataset <id>', 'dataset of the Python episode figures', 'mbpp/test')
    .option('--engine <list>', 'comma-separated SQL engines of the SQL figures', 'sqlite')
    .action(async (flags: BenchFlags) => {
      const registry = createProviderRegistry();
      const backends = flags.backend.split(',').map((name) => name.trim());
      for (const backend of backends) {
        if (!registry.has(backend)) throw new UsageError(`--backend: unknown backend "${backend}"`);
      }
      const groups = new Set(
        (flags.only ?? 'sandbox,bash,ctf,sql,python').split(',').map((name) => name.trim()),
      );
      for (const group of groups) {
        if (!['sandbox', 'bash', 'ctf', 'sql', 'python'].includes(group)) {
          throw new UsageError(`--only: unknown group "${group}" (known: sandbox, bash, ctf, sql, python)`);
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
                spec: { image: flags.image },
                onProgress,
              })),
            );
          }
          if (groups.has('bash')) {
            const dataset = await resolveDataset(flags.bashDataset, { env: 'bash' });
            const bash = envs.get('bash');
            const factory = await bash.open({ dataset, provider, image: flags.image });
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
          if (groups.has('ctf')) {
            const dataset = await resolveDataset('demo/ctf', { env: 'ctf' });
            const ctf = envs.get('ctf');
            const factory = await ctf.open({ dataset, provider, image: flags.image });
            figures.push(
              ...(await runEnvBench({
                backend,
                group: `ctf (${dataset.id})`,
                tasks: dataset.tasks,
                createEnv: () => factory.create(),
                goldActions: ctf.goldActions,
                samples: flags.samples,
                concurrency: [1, 2],
                onProgress,
              })),
            );
          }
          if (groups.has('python')) {
            const dataset = await resolveDataset(flags.pythonDataset, { env: 'python' });
            const python = envs.get('python');
            const factory = await python.open({ dataset, provider, image: flags.image });
            figures.push(
              ...(await runEnvBench({
                backend,
                group: `python (${dataset.id})`,
                // The first task warms up; the next 200 are measured (the throughput figure plays each).
                tasks: dataset.tasks.slice(1, 201),
                warmupTasks: dataset.tasks.slice(0, 1),
                createEnv: () => factory.create(),
                goldActions: python.goldActions,
                samples: flags.samples * 2,
                concurrency: [1, 2],
                targets: { episode: { op: '<=', value: 100, stat: 'p50' } },
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
      if (backends.length > 1) process.stdout.write(`\n${benchComparison(figures, backends)}\n`);
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
