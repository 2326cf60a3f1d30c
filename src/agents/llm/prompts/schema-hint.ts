/**
 * The SQL schema hint of `--handicap` (the paper's Table 5): a heading, then one line per table
 * with its columns, `- <table>: <column>, <column>`. Tables keep their order; a table without
 * columns shows `(no columns listed)`. No tables: an empty string (nothing to add to the prompt).
 */
export function schemaHint(tables: ReadonlyArray<{ name: string; columns: readonly string[] }>): string {
  if (tables.length === 0) return '';
  const lines = tables.map(
    (table) =>
      `- ${table.name}: ${table.columns.length > 0 ? table.columns.join(', ') : '(no columns listed)'}`,
  );
  return `The database has these tables (with their columns):\n${lines.join('\n')}`;
}
