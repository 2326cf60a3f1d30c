import type { SqliteChildReply } from './sqlite-child-protocol.js';

/** A session process's reply, its failure, or `timeout` when `deadline` (a `performance.now()` time) passes first. */
export async function replyWithin(
  request: Promise<SqliteChildReply>,
  deadline: number,
): Promise<{ reply: SqliteChildReply } | { error: unknown } | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - performance.now()));
  });
  const result = await Promise.race([
    request.then(
      (reply) => ({ reply }),
      (error: unknown) => ({ error }),
    ),
    expiry,
  ]);
  clearTimeout(timer);
  return result;
}

/** Converts values the IPC channel turned into plain `Uint8Array`s back into `Buffer`s (in place). */
export function nativeRows(rows: unknown[][]): unknown[][] {
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const value = row[i];
      if (value instanceof Uint8Array && !Buffer.isBuffer(value)) {
        row[i] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      }
    }
  }
  return rows;
}
