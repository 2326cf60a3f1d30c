/** Renders a cell for reading: NULL, numbers as written, text as is, bytes in hex. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  if (value instanceof Uint8Array) return `0x${Buffer.from(value).toString('hex')}`;
  if (value instanceof Date) return value.toISOString();
  return String(value).replaceAll('\n', '\\n');
}

/**
 * A plain-text table of a result set for agents: a header, one line per row (cells separated by
 * ` | `), and a last line with the row count, noting rows left out. `capped`: the engine stopped
 * counting at `totalRows`, so the count is a lower bound and says so.
 */
export function renderRows(
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  totalRows: number,
  shownLimit: number,
  capped = false,
): string {
  const shown = rows.slice(0, shownLimit);
  const lines = [columns.join(' | '), ...shown.map((row) => row.map(cell).join(' | '))];
  const more = totalRows - shown.length;
  const rowCount = `${capped ? 'more than ' : ''}${totalRows} row${totalRows === 1 && !capped ? '' : 's'}`;
  const notShown = capped ? `; only ${shown.length} shown` : more > 0 ? `; ${more} not shown` : '';
  const count = `(${rowCount}${notShown})`;
  return `${lines.join('\n')}\n${count}\n`;
}
