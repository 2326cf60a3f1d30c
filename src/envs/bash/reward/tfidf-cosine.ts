/**
 * Cosine similarity of two texts under scikit-learn's `TfidfVectorizer()` with default settings
 * fitted on exactly those two texts: the answer-similarity measure of the Bash reward.
 *
 * What the defaults mean, step by step (all in float64, in the order the reference computes it,
 * so the result agrees with the logged values bit for bit):
 * 1. Lowercase each text (Python `str.lower`; JavaScript `toLowerCase` applies the same Unicode
 *    mappings, including the final-sigma rule and `İ` → `i̇`; the two can differ only where the
 *    engines ship different Unicode versions).
 * 2. Tokens are the matches of `(?u)\b\w\w+\b`: maximal runs of at least two word characters, where
 *    a word character is, as in Python's `re`, a letter or number of any script (`\p{L}`, `\p{N}`)
 *    or `_`. Combining marks are not word characters in Python, so they split tokens. Runs are
 *    counted in code points, not UTF-16 units.
 * 3. Raw counts per text; smooth idf = ln((1 + n) / (1 + df)) + 1 with n = 2 documents, i.e. 1 for a
 *    term in both texts and 1 + ln 1.5 for a term in one.
 * 4. Each row is divided by its Euclidean norm (a row without tokens stays all zero).
 * 5. The similarity is the dot product of the two rows.
 *
 * Summation order: the reference stores each row's terms ordered by the vocabulary index they got
 * when first seen (text a's terms in order of first occurrence, then text b's new terms), and the
 * logged results were produced by a version whose idf scaling (a sparse product with a diagonal
 * matrix) reversed that order. Norms and the dot product are summed over the terms in that
 * reversed order. Only the last bits depend on it, which `round(0.33 * sim, 2)` almost never sees,
 * but it makes the logged similarities reproducible exactly.
 */

/** A maximal run of Python word characters (letters, numbers, underscore). */
const WORD_RUN = /[\p{L}\p{N}_]+/gu;

function isSurrogatePair(pair: string): boolean {
  const first = pair.charCodeAt(0);
  return first >= 0xd800 && first <= 0xdbff;
}

/**
 * The tokens scikit-learn's default analyzer produces for a text: lowercased, then every run of two
 * or more word characters, in order of appearance.
 */
export function tfidfTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD_RUN)) {
    const run = match[0];
    // At least two code points: a single astral letter is two UTF-16 units but one character.
    if (run.length > 2 || (run.length === 2 && !isSurrogatePair(run))) tokens.push(run);
  }
  return tokens;
}

function countTerms(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

/** One TF-IDF row: term → weight, in the order the reference sums over it. */
function weightedRow(
  terms: readonly string[],
  counts: ReadonlyMap<string, number>,
  idf: ReadonlyMap<string, number>,
) {
  const row = new Map<string, number>();
  for (const term of terms) {
    const count = counts.get(term);
    if (count !== undefined) row.set(term, count * idf.get(term)!);
  }
  let squares = 0;
  for (const weight of row.values()) squares += weight * weight;
  if (squares !== 0) {
    const norm = Math.sqrt(squares);
    for (const [term, weight] of row) row.set(term, weight / norm);
  }
  return row;
}

/**
 * Cosine similarity of `a` and `b` as `TfidfVectorizer().fit_transform([a, b])` followed by
 * `(X * X.T)[0, 1]` computes it, or `null` when neither text has a single token (the empty
 * vocabulary for which scikit-learn raises; the Bash reward then compares the texts for equality).
 * One text without tokens gives 0.
 */
export function tfidfCosine(a: string, b: string): number | null {
  const countsA = countTerms(tfidfTokens(a));
  const countsB = countTerms(tfidfTokens(b));
  // Vocabulary in order of first appearance across [a, b].
  const vocabulary = [...countsA.keys()];
  for (const term of countsB.keys()) if (!countsA.has(term)) vocabulary.push(term);
  if (vocabulary.length === 0) return null;

  const documents = 2;
  const idf = new Map<string, number>();
  for (const term of vocabulary) {
    const df = (countsA.has(term) ? 1 : 0) + (countsB.has(term) ? 1 : 0);
    idf.set(term, Math.log((documents + 1) / (df + 1)) + 1);
  }

  const order = vocabulary.slice().reverse();
  const rowA = weightedRow(order, countsA, idf);
  const rowB = weightedRow(order, countsB, idf);
  let dot = 0;
  for (const [term, weight] of rowA) {
    const other = rowB.get(term);
    if (other !== undefined) dot += weight * other;
  }
  return dot;
}
