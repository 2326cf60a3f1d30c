import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ViewerError } from '../core/errors.js';

/** A file of the viewer's page, read once. */
export interface ViewerAsset {
  readonly type: string;
  readonly body: Buffer;
}

/** The page's files by URL path (`/index.html`, `/assets/app.js`, …). */
export type ViewerAssets = ReadonlyMap<string, ViewerAsset>;

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Where the built page is: `assets/` beside the compiled module (`dist/viewer/assets/`, what the
 * package ships), or the build's output when this module runs from the sources (tests).
 */
export function viewerAssetsDirectory(): string {
  const candidates = [
    new URL('./assets/', import.meta.url),
    new URL('../../dist/viewer/assets/', import.meta.url),
  ];
  for (const candidate of candidates) {
    const path = fileURLToPath(candidate);
    if (existsSync(`${path}index.html`)) return path;
  }
  throw new ViewerError(
    'VIEWER_ASSETS_MISSING',
    "the viewer's page is not built (no dist/viewer/assets/index.html): run `npm run build`",
  );
}

/** The built page's files, read into memory: `index.html` at `/index.html`, the rest under `/assets/`. */
export function viewerAssets(): ViewerAssets {
  const directory = viewerAssetsDirectory();
  const assets = new Map<string, ViewerAsset>();
  for (const name of readdirSync(directory)) {
    const type = TYPES[extname(name)];
    if (type === undefined) continue;
    const body = readFileSync(`${directory}${name}`);
    assets.set(name === 'index.html' ? '/index.html' : `/assets/${name}`, { type, body });
  }
  return assets;
}

/** One built file's text (`app.js`, `app.css`), for the self-contained HTML report. */
export function viewerAssetText(name: string): string {
  return readFileSync(`${viewerAssetsDirectory()}${name}`, 'utf8');
}
