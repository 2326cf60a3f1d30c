import type { Command } from 'commander';
import { createDatasetRegistry, datasetSpec } from '../../datasets/dataset-registry.js';
import type { DatasetSpec } from '../../datasets/dataset-spec.js';
import { datasetStatus } from '../../datasets/dataset-status.js';
import { upstreamCacheRoot } from '../../datasets/fetch-upstream-file.js';
import { fetchUpstreamFiles } from '../../datasets/fetch-upstream-files.js';
import { sourceName, upstreamSource } from '../../datasets/upstream-source.js';

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function listRows(specs: readonly DatasetSpec[]) {
  return specs.map((spec) => ({
    id: spec.id,
    env: spec.env,
    tasks: spec.taskCount,
    status: datasetStatus(spec),
    builtIn: spec.builtIn,
    ...(spec.groupBy ? { groupBy: spec.groupBy } : {}),
    files: spec.files.length,
    description: spec.description,
    ...(spec.unavailable ? { unavailable: spec.unavailable } : {}),
    ...(spec.partial ? { partial: spec.partial } : {}),
  }));
}

function printList(specs: readonly DatasetSpec[], json: boolean): void {
  const rows = listRows(specs);
  if (json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const header = { id: 'id', env: 'env', tasks: 'tasks', status: 'status' };
  const width = (key: keyof typeof header) =>
    Math.max(header[key].length, ...rows.map((row) => String(row[key]).length));
  const line = (id: string, env: string, tasks: string, status: string, description: string) =>
    `${id.padEnd(width('id'))}  ${env.padEnd(width('env'))}  ${tasks.padStart(width('tasks'))}  ${status.padEnd(width('status'))}  ${description}`;
  const lines = [line('id', 'env', 'tasks', 'status', 'description')];
  for (const row of rows) lines.push(line(row.id, row.env, String(row.tasks), row.status, row.description));
  const notes = rows.flatMap((row) => [
    ...(row.unavailable ? [`${row.id}: cannot load: ${row.unavailable}`] : []),
    ...(row.partial ? [`${row.id}: ${row.partial}`] : []),
  ]);
  if (notes.length > 0) lines.push('', ...notes);
  lines.push('', `cache: ${upstreamCacheRoot()}`, `source: ${sourceName(upstreamSource())}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function pull(spec: DatasetSpec): Promise<void> {
  if (spec.builtIn) {
    process.stdout.write(`${spec.id}: built in, nothing to download\n`);
    return;
  }
  let fetched = 0;
  let bytes = 0;
  await fetchUpstreamFiles(spec.files, {
    onFile: (result) => {
      bytes += result.file.size;
      if (!result.fetched) return;
      fetched += 1;
      process.stdout.write(
        `fetched ${result.file.path} (${formatBytes(result.file.size)}) from ${result.from}\n`,
      );
    },
  });
  const dataset = await spec.load();
  const cached = spec.files.length - fetched;
  process.stdout.write(
    `${spec.id}: ${dataset.tasks.length} tasks, ${spec.files.length} files (${formatBytes(bytes)}) verified: ${fetched} fetched, ${cached} already cached\n`,
  );
  if (spec.partial) process.stdout.write(`${spec.id}: note: ${spec.partial}\n`);
}

export function registerDatasets(program: Command): void {
  const datasets = program.command('datasets').description('what datasets exist, and which are cached');
  datasets
    .command('list', { isDefault: true })
    .description('list the dataset ids with their environment, task count and cache status')
    .option('--json', 'print the list as JSON')
    .action((flags: { json?: boolean }) => {
      const registry = createDatasetRegistry();
      const specs = registry.list().map((entry) => registry.get(entry.id));
      printList(specs, flags.json === true);
    });
  datasets
    .command('pull')
    .description('download and verify (SHA-256) the files of datasets into the cache')
    .argument('<id...>', 'dataset ids (see `intercode datasets list`)')
    .action(async (ids: string[]) => {
      const registry = createDatasetRegistry();
      const specs = ids.map((id) => datasetSpec(registry, id));
      for (const spec of specs) await pull(spec);
    });
  for (const command of datasets.commands) command.exitOverride();
  datasets.exitOverride();
}
