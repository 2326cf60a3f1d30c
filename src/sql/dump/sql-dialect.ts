/**
 * The lexical rules of one SQL dialect: what quotes mean, which comments exist. The tokenizer needs
 * them because a `;` or a keyword inside a string must not count, and the dialects disagree on what a
 * string is (MySQL's `"x"` is a string, SQLite's and PostgreSQL's an identifier; only MySQL lets a
 * backslash escape a quote).
 */
export interface SqlLexicalRules {
  /** `'it\'s'` is one string (MySQL without NO_BACKSLASH_ESCAPES; PostgreSQL only inside `E'…'`). */
  readonly backslashEscapes: boolean;
  /** What `"…"` is: a string literal (MySQL default) or a quoted identifier (SQL standard). */
  readonly doubleQuoted: 'string' | 'identifier';
  /** `[name]` is a quoted identifier (SQLite, for Microsoft compatibility). */
  readonly bracketIdentifiers: boolean;
  /** `# …` is a line comment (MySQL). */
  readonly hashComments: boolean;
  /** `--` starts a comment only when followed by a blank or the end (MySQL); else any `--` does. */
  readonly dashCommentNeedsSpace: boolean;
  /** `/*!NNNNN … *\/` and `/*M!NNNNNN … *\/` are conditional comments, code to MySQL/MariaDB. */
  readonly conditionalComments: boolean;
  /** `$tag$ … $tag$` is a string, `E'…'` a string with backslash escapes (PostgreSQL). */
  readonly dollarQuotes: boolean;
  /** `/* /* *\/ *\/` nests (PostgreSQL). */
  readonly nestedBlockComments: boolean;
  /** `$x` is an identifier (MySQL); elsewhere a parameter (`$1`, SQLite's `$name`). */
  readonly dollarStartsIdentifier: boolean;
}

/** The dialects the engines speak. */
export type SqlDialect = 'mysql' | 'sqlite' | 'postgres';

const RULES: Readonly<Record<SqlDialect, SqlLexicalRules>> = {
  mysql: {
    backslashEscapes: true,
    doubleQuoted: 'string',
    bracketIdentifiers: false,
    hashComments: true,
    dashCommentNeedsSpace: true,
    conditionalComments: true,
    dollarQuotes: false,
    nestedBlockComments: false,
    dollarStartsIdentifier: true,
  },
  sqlite: {
    backslashEscapes: false,
    doubleQuoted: 'identifier',
    bracketIdentifiers: true,
    hashComments: false,
    dashCommentNeedsSpace: false,
    conditionalComments: false,
    dollarQuotes: false,
    nestedBlockComments: false,
    dollarStartsIdentifier: false,
  },
  postgres: {
    backslashEscapes: false,
    doubleQuoted: 'identifier',
    bracketIdentifiers: false,
    hashComments: false,
    dashCommentNeedsSpace: false,
    conditionalComments: false,
    dollarQuotes: true,
    nestedBlockComments: true,
    dollarStartsIdentifier: false,
  },
};

/** The lexical rules of a dialect (MySQL: its default SQL mode, without ANSI_QUOTES). */
export function lexicalRules(dialect: SqlDialect): SqlLexicalRules {
  return RULES[dialect];
}
