#!/usr/bin/env node
// Builds the viewer's page (viewer/src, Preact + uPlot) into dist/viewer/assets/: one script
// (app.js), one style sheet (app.css) and index.html, everything the page loads; nothing is fetched
// from elsewhere when it runs. Run by `npm run build` after tsc.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'viewer', 'assets');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: join(root, 'viewer', 'src', 'main.tsx') },
  outdir: out,
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(join(root, 'viewer', 'index.html'), join(out, 'index.html'));
