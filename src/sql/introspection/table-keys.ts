import type { TableDescription } from './mysql-catalogue.js';

/** One key of a table as MySQL holds it (the primary key, declared keys, keys InnoDB adds for foreign keys). */
export interface Key {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
  readonly primary: boolean;
}

/** Names compared as MySQL compares column and index names: case-insensitively. */
export const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The table's keys in MySQL's order: PRIMARY, unique keys without nullable columns, other unique keys, the rest. */
export function keysOf(table: TableDescription): Key[] {
  const notNull = (name: string) =>
    table.primaryKey.some((column) => same(column, name)) ||
    table.columns.some((column) => same(column.name, name) && column.notNull);
  const used = new Set<string>();
  const declared: Key[] = [];
  if (table.primaryKey.length > 0) {
    declared.push({ name: 'PRIMARY', columns: table.primaryKey, unique: true, primary: true });
    used.add('primary');
  }
  const uniqueName = (base: string) => {
    let name = base;
    for (let n = 2; used.has(name.toLowerCase()); n++) name = `${base}_${n}`;
    used.add(name.toLowerCase());
    return name;
  };
  for (const index of table.indexes) {
    if (index.columns.length === 0) continue;
    declared.push({
      name: uniqueName(index.name ?? (index.columns[0] as string)),
      columns: index.columns,
      unique: index.unique,
      primary: false,
    });
  }
  for (const foreign of table.foreignKeys) {
    const covered = declared.some(
      (key) =>
        key.columns.length >= foreign.columns.length &&
        foreign.columns.every((column, i) => same(column, key.columns[i] ?? '')),
    );
    if (covered || foreign.columns.length === 0) continue;
    declared.push({
      name: uniqueName(foreign.name ?? (foreign.columns[0] as string)),
      columns: foreign.columns,
      unique: false,
      primary: false,
    });
  }
  const rank = (key: Key) => (key.primary ? 0 : key.unique ? (key.columns.every(notNull) ? 1 : 2) : 3);
  return declared
    .map((key, order) => ({ key, order }))
    .sort((a, b) => rank(a.key) - rank(b.key) || a.order - b.order)
    .map(({ key }) => key);
}

/** `PRI`, `UNI`, `MUL` or '' for each column (by lower-cased name). */
export function columnKeys(table: TableDescription, keys: readonly Key[]): Map<string, string> {
  const marks = new Map<string, string>();
  const mark = (column: string, value: string) => {
    const name = column.toLowerCase();
    const order = ['PRI', 'UNI', 'MUL', ''];
    const current = marks.get(name) ?? '';
    if (order.indexOf(value) < order.indexOf(current)) marks.set(name, value);
  };
  const notNull = (name: string) => table.columns.some((column) => same(column.name, name) && column.notNull);
  const primary =
    keys.find((key) => key.primary) ?? keys.find((key) => key.unique && key.columns.every(notNull));
  for (const column of primary?.columns ?? []) mark(column, 'PRI');
  for (const key of keys) {
    if (key === primary) continue;
    const [first] = key.columns;
    if (first === undefined) continue;
    mark(first, key.unique && key.columns.length === 1 ? 'UNI' : 'MUL');
  }
  return marks;
}
