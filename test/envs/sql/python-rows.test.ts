import { describe, expect, it } from 'vitest';
import { pyRowStrs } from '../../../src/envs/python-compat/python-repr.js';
import { toPythonRows } from '../../../src/envs/sql/python-rows.js';
import type { RowsOutcome } from '../../../src/sql/engine/sql-engine.js';

function outcome(rows: unknown[][]): RowsOutcome {
  return {
    kind: 'rows',
    columns: rows[0]?.map((_, i) => `c${i}`) ?? [],
    rows,
    totalRows: rows.length,
    truncated: false,
    durationMs: 0,
  };
}

describe('toPythonRows (SQLite)', () => {
  it("renders rows as Python's sqlite3 module returns them, bytes as bytes", () => {
    const rows = [
      [1n, 'x', 1.5, null],
      [2n, Buffer.from([0x0a, 0xff]), -0.0, "it's"],
      [undefined, '', 1e16, 3n],
    ];
    expect(pyRowStrs(toPythonRows('sqlite', outcome(rows)))).toEqual([
      "(1, 'x', 1.5, None)",
      `(2, b'\\n\\xff', -0.0, "it's")`,
      "(None, '', 1e+16, 3)",
    ]);
  });
});
