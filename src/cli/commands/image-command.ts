import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { createDatasetRegistry, datasetSpec } from '../../datasets/dataset-registry.js';
import { datasetStatus } from '../../datasets/dataset-status.js';
import { resolveDataset } from '../../datasets/resolve-dataset.js';
import { scriptLayer, scriptLayerStatus } from '../../envs/bash/script-layer.js';
import { taskLayerOptions } from '../../envs/bash/task-layer.js';
import {
  debianImageStatus,
  ensureDebianImage,
  type ImageProfile,
  imageProfiles,
  type LayerProfile,
  pruneDebianImages,
  staleDebianImages,
} from '../../sandbox/images/index.js';
import { createProviderRegistry } from '../../sandbox/provider-registry.js';
import { EXIT } from '../exit-codes.js';
import { interruptSignal, stopGracefully } from '../interrupt.js';

/** One row of `intercode image list`. */
interface ImageRow {
  readonly profile: string;
  readonly kind: 'root' | 'layer';
  readonly built: boolean;
  readonly key: string | null;
  readonly sizeBytes: number | null;
  readonly path: string | null;
  readonly description: string;
  /** Why the status could not be found out (a layer whose dataset is not cached). */
  readonly note?: string;
}

function knownProfiles(): string {
  return [...imageProfiles().map((profile) => profile.name), 'all'].join(', ');
}

function profileNamed(name: string): ImageProfile {
  const profile = imageProfiles().find((candidate) => candidate.name === name);
  if (!profile) throw new UsageError(`unknown image profile "${name}" (known: ${knownProfiles()})`);
  return profile;
}

/** The build options of a layer profile's file system, from its dataset's first task. */
async function layerOptions(profile: LayerProfile, load: boolean) {
  const spec = datasetSpec(createDatasetRegistry(), profile.dataset);
  if (!load && datasetStatus(spec) !== 'cached') return null;
  const dataset = await resolveDataset(profile.dataset, { env: 'bash' });
  const task = dataset.tasks[0];
  const options = task ? taskLayerOptions(dataset, task, `debian:${profile.base}`) : null;
  if (!options) throw new UsageError(`dataset ${profile.dataset} has no setup script`);
  return options;
}

async function row(profile: ImageProfile): Promise<ImageRow> {
  if (profile.kind === 'root') {
    const status = debianImageStatus(profile.name);
    return {
      profile: profile.name,
      kind: 'root',
      built: status.built,
      key: status.key,
      sizeBytes: status.sizeBytes ?? null,
      path: status.dir,
      description: profile.description,
    };
  }
  const base = debianImageStatus(profile.base);
  const options = await layerOptions(profile, false).catch(() => null);
  if (!options) {
    return {
      profile: profile.name,
      kind: 'layer',
      built: false,
      key: null,
      sizeBytes: null,
      path: null,
      description: profile.description,
      note: `dataset ${profile.dataset} is not cached (intercode datasets pull ${profile.dataset})`,
    };
  }
  const layer = scriptLayerStatus(options);
  return {
    profile: profile.name,
    kind: 'layer',
    built: base.built && layer.built,
    key: layer.key,
    sizeBytes: null,
    path: layer.layer,
    description: profile.description,
  };
}

function formatSize(bytes: number | null): string {
  if (bytes === null) return '-';
  return bytes < 1024 * 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(0)} MiB`
    : `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

function printRows(rows: readonly ImageRow[]): void {
  const cells = rows.map((item) => [
    item.profile,
    item.built ? 'built' : 'not built',
    item.key ?? '-',
    formatSize(item.sizeBytes),
    item.path ?? '-',
  ]);
  const header = ['profile', 'status', 'key', 'size', 'path'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((cell) => (cell[column] ?? '').length)),
  );
  const line = (cell: readonly string[]) =>
    cell
      .map((text, column) => (column === 3 ? text.padStart(widths[column]!) : text.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  const lines = [line(header), ...cells.map(line)];
  const notes = rows.filter((item) => item.note).map((item) => `${item.profile}: ${item.note}`);
  if (notes.length > 0) lines.push('', ...notes);
  const stale = staleDebianImages();
  if (stale.length > 0) {
    lines.push('', `${stale.length} stale image folder(s) of older package lists: intercode image prune`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

function progress(profile: string): (line: string) => void {
  return (line) => process.stderr.write(`image ${profile}: ${line}\n`);
}

async function buildProfile(profile: ImageProfile): Promise<void> {
  const started = performance.now();
  if (profile.kind === 'root') {
    const before = debianImageStatus(profile.name);
    if (before.built) {
      process.stdout.write(`${profile.name}: already built (key ${before.key}) ${before.dir}\n`);
      return;
    }
    const image = await ensureDebianImage(profile.name, {
      onProgress: progress(profile.name),
      signal: interruptSignal,
    });
    const status = debianImageStatus(profile.name);
    process.stdout.write(
      `${profile.name}: built (key ${image.key}, ${formatSize(status.sizeBytes ?? null)}, ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s) ${status.dir}\n`,
    );
    return;
  }
  if (!debianImageStatus(profile.base).built) await buildProfile(profileNamed(profile.base));
  const options = await layerOptions(profile, true);
  if (!options) throw new UsageError(`dataset ${profile.dataset} cannot be loaded`);
  if (scriptLayerStatus(options).built) {
    process.stdout.write(`${profile.name}: already built ${scriptLayerStatus(options).layer}\n`);
    return;
  }
  const layerStarted = performance.now();
  const provider = createProviderRegistry().get('bwrap')();
  try {
    progress(profile.name)(`running ${options.scriptPath} on debian:${profile.base}`);
    const layer = await scriptLayer(provider, options);
    process.stdout.write(
      `${profile.name}: built (${((performance.now() - layerStarted) / 1000).toFixed(1)} s) ${layer}\n`,
    );
  } finally {
    await provider.close();
  }
}

export function registerImage(program: Command): void {
  const image = program
    .command('image')
    .description('Debian sandbox images (built with mmdebstrap from declared package lists)');
  image
    .command('build')
    .description(`build an image profile and cache it (profiles: ${knownProfiles()})`)
    .argument('<profile>', 'image profile, or all')
    .action(async (name: string) => {
      const profiles = name === 'all' ? imageProfiles() : [profileNamed(name)];
      stopGracefully();
      try {
        for (const profile of profiles) await buildProfile(profile);
      } catch (error) {
        if (!interruptSignal.aborted) throw error;
        process.stderr.write('intercode: image build interrupted; nothing half-built was kept\n');
        process.exitCode = EXIT.interrupted;
      }
    });
  image
    .command('list')
    .description('image profiles: built or not, cache key, size, path')
    .option('--json', 'print the list as JSON')
    .action(async (flags: { json?: boolean }) => {
      const rows = await Promise.all(imageProfiles().map(row));
      if (flags.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else printRows(rows);
    });
  image
    .command('prune')
    .description('remove images of older package lists and abandoned builds (when no run uses them)')
    .action(() => {
      const removed = pruneDebianImages();
      for (const path of removed) process.stdout.write(`removed ${path}\n`);
      if (removed.length === 0) process.stdout.write('nothing to remove\n');
    });
  for (const command of image.commands) command.exitOverride();
  image.exitOverride();
}
