/** How server text shows the session's own accounts (its account and its reader's): one name for every session. */
export const SHOWN_ACCOUNT = 'intercode';

/**
 * Server text that names a session's copy of a database (`voter_1__2`, or `ic_<tag>_voter_1_2` on a
 * shared server) as the agent would see it on upstream's single database (`voter_1`), and the
 * session's accounts (`ic_s17`, its reader `ic_r17`: numbered in the order copies were made, which
 * concurrent sessions race for) as {@link SHOWN_ACCOUNT}: each name as a whole word, any case. So an
 * episode prints the same whichever copy served it.
 */
export function copyNameMask(
  copy: string,
  shown: string,
  accounts: readonly string[],
): (text: string) => string {
  const replacements = new Map<string, string>(
    accounts.map((account) => [account.toLowerCase(), SHOWN_ACCOUNT]),
  );
  if (copy.toLowerCase() !== shown.toLowerCase()) replacements.set(copy.toLowerCase(), shown);
  if (replacements.size === 0) return (text) => text;
  const names = [...replacements.keys()]
    .sort((a, b) => b.length - a.length)
    .map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // `Tables_in_` may precede a name: only a letter, digit or `$` before it joins it to a word.
  const pattern = new RegExp(`(?<![A-Za-z0-9$])(?:${names.join('|')})(?![\\w$])`, 'gi');
  return (text) => text.replace(pattern, (name) => replacements.get(name.toLowerCase()) ?? name);
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
