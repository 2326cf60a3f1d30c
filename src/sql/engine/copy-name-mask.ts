/**
 * Server text that names a session's copy of a database (`voter_1__2`, or `ic_<tag>_voter_1_2` on a
 * shared server) as the agent would see it on upstream's single database (`voter_1`): the copy's
 * name as a whole word, any case, replaced by the database's own. The identity when both are the
 * same (the first copy on the engine's own server).
 */
export function copyNameMask(copy: string, shown: string): (text: string) => string {
  if (copy.toLowerCase() === shown.toLowerCase()) return (text) => text;
  const escaped = copy.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // `Tables_in_` may precede the name: only a letter, digit or `$` before it joins it to a word.
  const pattern = new RegExp(`(?<![A-Za-z0-9$])${escaped}(?![\\w$])`, 'gi');
  return (text) => text.replace(pattern, shown);
}

/** Applies `mask` to every text cell of `rows`, in place. */
export function maskCells(rows: unknown[][], mask: (text: string) => string): void {
  for (const row of rows) {
    for (let i = 0; i < row.length; i += 1) {
      const cell = row[i];
      if (typeof cell === 'string') row[i] = mask(cell);
    }
  }
}
