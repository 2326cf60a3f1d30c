#!/usr/bin/env node
// Copies the programs that ship beside the compiled modules (Python, Perl and CommonJS files that run
// in a sandbox or a child process) from src/ into dist/ at the same relative place, where the modules
// load them through `new URL('./<file>', import.meta.url)`. Run by `npm run build` after tsc.
//
//   node scripts/copy-assets.mjs          copy every asset into dist/
//   node scripts/copy-assets.mjs --list   print the assets (paths relative to src/), copy nothing
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** File endings of the assets: everything in src/ that tsc does not compile. */
const ASSET_ENDINGS = ['.py', '.pl', '.cjs'];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');

/** Paths of the assets below `dir`, relative to src/ with `/` separators, sorted. */
function assets(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return assets(path);
      if (!entry.isFile() || !ASSET_ENDINGS.some((ending) => entry.name.endsWith(ending))) return [];
      return [relative(src, path).split(sep).join('/')];
    })
    .sort();
}

const found = assets(src);
if (process.argv.includes('--list')) {
  process.stdout.write(found.map((path) => `${path}\n`).join(''));
} else {
  for (const path of found) {
    mkdirSync(dirname(join(dist, path)), { recursive: true });
    copyFileSync(join(src, path), join(dist, path));
  }
}
