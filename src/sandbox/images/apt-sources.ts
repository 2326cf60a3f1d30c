import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One apt repository entry, whichever file format it came from. */
export interface AptSource {
  readonly uris: readonly string[];
  readonly suites: readonly string[];
  readonly components: readonly string[];
  readonly signedBy?: string;
}

/** Parses deb822 `.sources` text: paragraphs of `Field: value`; only `Types: deb` entries, enabled ones. */
export function parseDeb822Sources(text: string): AptSource[] {
  const sources: AptSource[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    let last: string | undefined;
    for (const line of paragraph.split('\n')) {
      if (line.startsWith('#') || line.trim() === '') continue;
      if (/^\s/.test(line) && last !== undefined) {
        fields.set(last, `${fields.get(last) ?? ''}\n${line.trim()}`);
        continue;
      }
      const match = /^([\w-]+):\s*(.*)$/.exec(line);
      if (!match) continue;
      last = match[1]!.toLowerCase();
      fields.set(last, match[2]!.trim());
    }
    const words = (name: string) => (fields.get(name) ?? '').split(/\s+/).filter(Boolean);
    if (!words('types').includes('deb')) continue;
    if ((fields.get('enabled') ?? 'yes').toLowerCase() === 'no') continue;
    const signedBy = fields.get('signed-by');
    sources.push({
      uris: words('uris'),
      suites: words('suites'),
      components: words('components'),
      ...(signedBy ? { signedBy } : {}),
    });
  }
  return sources;
}

/** Parses one-line-style `sources.list` text (`deb [options] uri suite component…`). */
export function parseOneLineSources(text: string): AptSource[] {
  const sources: AptSource[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line.startsWith('deb ') && !line.startsWith('deb\t')) continue;
    let rest = line.slice(3).trim();
    let signedBy: string | undefined;
    const options = /^\[([^\]]*)\]\s*/.exec(rest);
    if (options) {
      rest = rest.slice(options[0].length);
      signedBy = /signed-by=(\S+)/.exec(options[1]!)?.[1];
    }
    const [uri, suite, ...components] = rest.split(/\s+/);
    if (!uri || !suite) continue;
    sources.push({ uris: [uri], suites: [suite], components, ...(signedBy ? { signedBy } : {}) });
  }
  return sources;
}

/** Every enabled `deb` source of the host's apt configuration under `root` (default `/etc/apt`). */
export function hostAptSources(root = '/etc/apt'): AptSource[] {
  const sources: AptSource[] = [];
  const list = join(root, 'sources.list');
  if (existsSync(list)) sources.push(...parseOneLineSources(readFileSync(list, 'utf8')));
  const dir = join(root, 'sources.list.d');
  let names: string[] = [];
  try {
    names = readdirSync(dir).sort();
  } catch {
    names = [];
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (name.endsWith('.list')) sources.push(...parseOneLineSources(readFileSync(path, 'utf8')));
      else if (name.endsWith('.sources')) sources.push(...parseDeb822Sources(readFileSync(path, 'utf8')));
    } catch {
      // An unreadable file is not a source.
    }
  }
  return sources;
}

/**
 * The host's sources for one Debian release (`bookworm`, `bookworm-updates`, `bookworm-security`…),
 * as a deb822 text for mmdebstrap; only the `main` component. Null when the host has none.
 */
export function releaseSources(suite: string, sources: readonly AptSource[]): string | null {
  const paragraphs: string[] = [];
  for (const source of sources) {
    const suites = source.suites.filter((name) => name === suite || name.startsWith(`${suite}-`));
    if (suites.length === 0 || !source.components.includes('main')) continue;
    const lines = [
      'Types: deb',
      `URIs: ${source.uris.join(' ')}`,
      `Suites: ${suites.join(' ')}`,
      'Components: main',
    ];
    // An inline key block is kept out: the archive keyring of the host verifies Debian's releases.
    if (source.signedBy && !source.signedBy.includes('\n')) lines.push(`Signed-By: ${source.signedBy}`);
    paragraphs.push(lines.join('\n'));
  }
  return paragraphs.length === 0 ? null : `${paragraphs.join('\n\n')}\n`;
}
