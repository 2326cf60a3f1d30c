import type { SqliteChildReply } from './sqlite-child-protocol.js';
import type { SentRequest } from './sqlite-process.js';

/**
 * A session process's reply, its failure, or `timeout` when `limitMs` passes first. The time limit
 * counts from the request's turn (every request sent before it answered): time spent waiting behind
 * the requests before it (the episode's gold, sent in the same message) is not the statement's.
 */
export async function replyWithin(
  sent: SentRequest,
  limitMs: number,
): Promise<{ reply: SqliteChildReply } | { error: unknown } | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  let answered = false;
  const expiry = new Promise<'timeout'>((resolve) => {
    void sent.turn.then(() => {
      if (!answered) timer = setTimeout(() => resolve('timeout'), Math.max(0, limitMs));
    });
  });
  const result = await Promise.race([
    sent.reply.then(
      (reply) => ({ reply }),
      (error: unknown) => ({ error }),
    ),
    expiry,
  ]);
  answered = true;
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
