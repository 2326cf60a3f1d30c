/** A Markdown (GFM) table: the first column left-aligned, the others right-aligned. */
export function formatMarkdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const escaped = (cell: string) => cell.replaceAll('|', '\\|');
  const line = (cells: readonly string[]) => `| ${cells.map(escaped).join(' | ')} |`;
  const align = header.map((_, column) => (column === 0 ? ':--' : '--:'));
  return [line(header), `|${align.join('|')}|`, ...rows.map(line)].join('\n');
}
