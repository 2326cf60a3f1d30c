import type { DumpForeignKey, DumpIndex, DumpTable } from '../dump/dump-model.js';

/** One column of an index as an engine's catalogue lists it (`column` null: an expression). */
export interface IndexColumnRow {
  /** The engine's name of the index (groups the rows). */
  readonly key: string;
  /** The name shown; none for an index the engine named itself. */
  readonly name?: string;
  readonly unique: boolean;
  readonly column: string | null;
}

/** Indexes from their column rows, in order; an index over an expression (or none of whose columns remain) is left out. */
export function groupIndexes(rows: Iterable<IndexColumnRow>): DumpIndex[] {
  const byKey = new Map<string, { name?: string; columns: string[]; unique: boolean; complete: boolean }>();
  for (const row of rows) {
    let index = byKey.get(row.key);
    if (!index) {
      index = {
        ...(row.name !== undefined ? { name: row.name } : {}),
        columns: [],
        unique: row.unique,
        complete: true,
      };
      byKey.set(row.key, index);
    }
    if (row.column === null) index.complete = false;
    else index.columns.push(row.column);
  }
  return [...byKey.values()]
    .filter((index) => index.complete && index.columns.length > 0)
    .map(({ complete: _complete, ...index }) => index);
}

/** One column pair of a foreign key as an engine's catalogue lists it. */
export interface ForeignKeyColumnRow {
  /** The engine's id of the key (groups the rows). */
  readonly key: string;
  readonly refTable: string;
  readonly from: string;
  readonly to: string;
}

/** Foreign keys from their column rows, in order. */
export function groupForeignKeys(rows: Iterable<ForeignKeyColumnRow>): DumpForeignKey[] {
  const keys = new Map<string, { columns: string[]; refTable: string; refColumns: string[] }>();
  for (const row of rows) {
    let entry = keys.get(row.key);
    if (!entry) {
      entry = { columns: [], refTable: row.refTable, refColumns: [] };
      keys.set(row.key, entry);
    }
    entry.columns.push(row.from);
    entry.refColumns.push(row.to);
  }
  return [...keys.values()];
}

/**
 * An index of a changed dump table under its dump name: the engine named each dump index after the
 * table (`engineName` of the dump index and its position); an index that is none of them keeps its name.
 */
export function modelIndexName(
  index: DumpIndex,
  table: DumpTable,
  engineName: (model: DumpIndex, position: number) => string,
): DumpIndex {
  const model = table.indexes.find((candidate, i) => index.name === engineName(candidate, i));
  if (!model) return index;
  const { name: _name, ...rest } = index;
  return model.name !== undefined ? { ...rest, name: model.name } : rest;
}
