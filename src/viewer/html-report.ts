import { createHash } from 'node:crypto';
import { RunIndex } from './run-index.js';
import type { RunInfo } from './viewer-api.js';
import { viewerAssetText } from './viewer-assets.js';

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** HTML text escaped for an element's content or a quoted attribute. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * The runs of `intercode report --format html`: the same figures and plots as the viewer's runs
 * page, in one file that needs nothing else (docs/cli/report.md). The page's script and style are
 * inlined and allowed by their hashes only; the runs' data is a JSON block the script reads (every
 * `<` escaped, so no text of a run can end the block), and the page draws every text as text.
 */
export function htmlReport(directories: readonly string[]): string {
  const runs: RunInfo[] = directories.map((directory, id) => new RunIndex(id, directory).info());
  return htmlReportOf(runs);
}

export function htmlReportOf(runs: readonly RunInfo[]): string {
  // `</script` cannot appear in the script's code outside its strings, where `<\/` means the same.
  const script = viewerAssetText('app.js').replace(/<\/script/gi, '<\\/script');
  const style = viewerAssetText('app.css');
  const data = JSON.stringify(runs).replace(/</g, '\\u003c');
  const policy = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const title = `intercode report: ${runs.map((run) => run.name).join(', ')}`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(policy)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    '<link rel="icon" href="data:,">',
    `<style>${style}</style>`,
    '</head>',
    '<body>',
    '<main id="app"></main>',
    `<script type="application/json" id="intercode-report-data">${data}</script>`,
    `<script type="module">${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
