/**
 * Reading `git status --short` output the way the upstream Bash reward does.
 *
 * Upstream does not parse the porcelain format line by line: it splits the whole output on
 * whitespace and pairs the tokens two by two, `(tokens[i + 1], tokens[i])` for i = 0, 2, 4, …, as
 * (path, status). For ordinary lines (`?? testbed/x.txt`, ` M testbed/a.txt`, `D  b.txt`) that is
 * exactly one entry per line.
 */

/** One (path, status) pair of the file-system diff, e.g. `{ path: 'testbed/x.txt', status: '??' }`. */
export interface GitStatusEntry {
  readonly path: string;
  readonly status: string;
}

/** The code points Python's `str.split()` splits on (`str.isspace()`); not the same set as JS `\s`. */
const PYTHON_WHITESPACE: ReadonlySet<number> = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002,
  0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** Python's `text.split()`: the non-empty runs between whitespace characters. */
export function pythonSplit(text: string): string[] {
  const tokens: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    // Every whitespace character is in the BMP, so UTF-16 units are enough here.
    if (PYTHON_WHITESPACE.has(text.charCodeAt(i))) {
      if (start >= 0) tokens.push(text.slice(start, i));
      start = -1;
    } else if (start < 0) {
      start = i;
    }
  }
  if (start >= 0) tokens.push(text.slice(start));
  return tokens;
}

/**
 * Parses `git status --short` output into (path, status) pairs, reproducing upstream's
 * token pairing.
 *
 * Where it departs from git's own meaning, on purpose (this is what the recorded rewards saw):
 * - A path with a space (git prints it quoted: `?? "a b.txt"`) yields two tokens, so the pairing
 *   shifts: `?? "a b.txt"` alone gives the pairs (`"a`, `??`) and then an odd token. In a longer
 *   listing the shift carries on into the following lines, producing entries such as
 *   `{ path: 'D', status: 'x.txt' }` (the logged gpt-4 fs_2 task 5 has these).
 * - A rename (`R  old -> new`) is four tokens and likewise shifts the pairing.
 * - Quoted names keep their quotes and C escapes (`"Icon\r"`), as upstream compared them.
 *
 * Odd token count: upstream indexes past the end and raises `IndexError`, so the whole reward
 * computation fails for that step. This function throws a `RangeError` in that case (nothing is
 * silently dropped); callers decide how to surface it.
 */
export function parseGitStatus(text: string): GitStatusEntry[] {
  const tokens = pythonSplit(text);
  if (tokens.length % 2 !== 0) {
    throw new RangeError(
      `git status output has an odd number of tokens (${tokens.length}); upstream's pairing fails here`,
    );
  }
  const entries: GitStatusEntry[] = [];
  for (let i = 0; i < tokens.length; i += 2) {
    entries.push({ path: tokens[i + 1]!, status: tokens[i]! });
  }
  return entries;
}

/**
 * Renders entries as `git status --short` would print them for plain paths (`XY path`, one per
 * line, a two-character status column), so that `parseGitStatus(formatGitStatus(e))` returns `e`
 * for paths and statuses without whitespace. Single-letter statuses are printed in git's index
 * column (`A  path`, `M  path`); the parse does not see the difference.
 */
export function formatGitStatus(entries: readonly GitStatusEntry[]): string {
  return entries.map((entry) => `${entry.status.padEnd(2, ' ')} ${entry.path}\n`).join('');
}
