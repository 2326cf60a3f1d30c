/**
 * Pieces of SQL joined by `separator` into texts of at most `maxBytes` characters each, every text
 * starting with `head` (a piece longer than that makes a text of its own): the rows of multi-row
 * INSERTs (`head` `INSERT INTO t VALUES `, separator `,`), or statements sent in one multi-statement
 * round trip (separator `;\n`).
 */
export function sqlBatches(
  pieces: Iterable<string>,
  separator: string,
  maxBytes: number,
  head = '',
): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let size = head.length;
  for (const piece of pieces) {
    if (current.length > 0 && size + piece.length > maxBytes) {
      out.push(head + current.join(separator));
      current = [];
      size = head.length;
    }
    current.push(piece);
    size += piece.length + separator.length;
  }
  if (current.length > 0) out.push(head + current.join(separator));
  return out;
}
