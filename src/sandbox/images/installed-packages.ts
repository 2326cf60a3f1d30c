import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface InstalledPackage {
  readonly name: string;
  readonly version: string;
  readonly architecture: string;
}

/**
 * The packages installed in a Debian root, read from its dpkg status database (what `dpkg-query -W`
 * inside the root prints), sorted by name.
 */
export function installedPackages(rootfs: string): InstalledPackage[] {
  const text = readFileSync(join(rootfs, 'var', 'lib', 'dpkg', 'status'), 'utf8');
  const packages: InstalledPackage[] = [];
  for (const paragraph of text.split(/\n\n+/)) {
    const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(paragraph)?.[1]?.trim();
    const name = field('Package');
    const version = field('Version');
    if (!name || !version || field('Status') !== 'install ok installed') continue;
    packages.push({ name, version, architecture: field('Architecture') ?? 'all' });
  }
  return packages.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
