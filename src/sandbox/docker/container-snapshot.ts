import { spawnSync } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Docker from 'dockerode';
import { SandboxError } from '../../core/errors.js';
import { containerChanges, readArchive, statPath } from './container-files.js';
import type { TarEntry } from './tar-entries.js';

/**
 * Writes the container's changes as an overlay layer: files, folders and links as they are now,
 * deleted paths as whiteouts (character devices 0/0), ready for `layers` of a later spec.
 */
export async function snapshotContainer(container: Docker.Container, directory: string): Promise<void> {
  const changes = (await containerChanges(container)).sort((a, b) => (a.Path < b.Path ? -1 : 1));
  mkdirSync(directory, { recursive: true });
  const covered: string[] = [];
  for (const change of changes) {
    const path = change.Path;
    if (covered.some((prefix) => path.startsWith(`${prefix}/`))) continue;
    const target = join(directory, path);
    if (change.Kind === 2) {
      mkdirSync(dirname(target), { recursive: true });
      rmSync(target, { recursive: true, force: true });
      const made = spawnSync('mknod', [target, 'c', '0', '0'], { encoding: 'utf8' });
      if (made.status !== 0)
        throw new SandboxError('SANDBOX_IO', `cannot write a whiteout: ${made.stderr.trim()}`);
      continue;
    }
    const stat = await statPath(container, path);
    if (!stat) continue;
    if (stat.type === 'dir' && change.Kind === 0) {
      mkdirSync(target, { recursive: true });
      chmodSync(target, stat.mode);
      continue;
    }
    const entries = await readArchive(container, path);
    if (!entries) continue;
    writeEntries(entries, dirname(target));
    if (stat.type === 'dir') covered.push(path);
  }
}

/** Writes the entries of an archive below `base` (their names are relative to it). */
function writeEntries(entries: readonly TarEntry[], base: string): void {
  for (const entry of entries) {
    const name = Buffer.from(entry.name.replace(/\/+$/, ''), 'latin1').toString('utf8');
    const target = join(base, name);
    mkdirSync(dirname(target), { recursive: true });
    switch (entry.type) {
      case 'dir':
        mkdirSync(target, { recursive: true });
        chmodSync(target, entry.mode);
        break;
      case 'file':
        rmSync(target, { force: true, recursive: true });
        writeFileSync(target, entry.content, { mode: entry.mode });
        chmodSync(target, entry.mode);
        break;
      case 'symlink':
        rmSync(target, { force: true, recursive: true });
        symlinkSync(Buffer.from(entry.linkName, 'latin1').toString('utf8'), target);
        break;
      case 'hardlink': {
        rmSync(target, { force: true, recursive: true });
        const linked = Buffer.from(entry.linkName.replace(/\/+$/, ''), 'latin1').toString('utf8');
        linkSync(join(base, linked), target);
        break;
      }
      default:
        // Devices, pipes and sockets are not kept in layers.
        break;
    }
  }
}
