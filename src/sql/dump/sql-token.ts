/**
 * Kinds of lexical tokens. Blanks are not tokens.
 * - `word`: a keyword or bare identifier (`SELECT`, `T1`, `load_extension`).
 * - `quoted-identifier`: `` `x` ``, `"x"` (SQLite, PostgreSQL), `[x]` (SQLite); `value` is unquoted.
 * - `string`: `'x'`, `"x"` (MySQL), `E'x'`, `$$x$$` (PostgreSQL); `value` is the unescaped text.
 * - `blob`: `X'0A1B'`; `value` is the hex digits.
 * - `number`: `42`, `1.5`, `.5`, `1e-3`, `0x1F` (`text` is the literal as written).
 * - `variable`: `@x`, `@@x`, `?`, `?1`, `:x`, `$1`, `$x`.
 * - `symbol`: punctuation and operators (`(`, `)`, `,`, `;`, `.`, `=`, `<=`, `||`, …).
 * - `comment`: `-- …`, `# …`, `/* … *\/`.
 * - `conditional-comment`: MySQL's `/*!NNNNN … *\/` (or MariaDB's `/*M!NNNNNN … *\/`): code that a
 *   MySQL server runs when its version is at least `version`; `value` is the body.
 */
export type SqlTokenKind =
  | 'word'
  | 'quoted-identifier'
  | 'string'
  | 'blob'
  | 'number'
  | 'variable'
  | 'symbol'
  | 'comment'
  | 'conditional-comment';

/** One token of SQL text. */
export interface SqlToken {
  readonly kind: SqlTokenKind;
  /** The source text of the token, quotes and prefixes included. */
  readonly text: string;
  /** Strings and identifiers: the unquoted, unescaped value; conditional comments: the body; else `text`. */
  readonly value: string;
  /** Offset of the first character in the source. */
  readonly start: number;
  /** Offset just past the last character. */
  readonly end: number;
  /** 1-based line of the first character. */
  readonly line: number;
  /** A quote or block comment that runs to the end of the text without being closed. */
  readonly unterminated?: true;
  /** Conditional comments: the minimum server version (`40101`), absent for `/*! … *\/`. */
  readonly version?: number;
}

/** True for tokens that are code (everything except comments; MySQL conditional comments are code). */
export function isCodeToken(token: SqlToken): boolean {
  return token.kind !== 'comment';
}

/** True when a token is the given keyword (a bare word, compared case-insensitively). */
export function isKeyword(token: SqlToken | undefined, keyword: string): boolean {
  return token?.kind === 'word' && token.value.toUpperCase() === keyword;
}
