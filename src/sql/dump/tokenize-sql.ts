import { lexicalRules, type SqlDialect, type SqlLexicalRules } from './sql-dialect.js';
import type { SqlToken, SqlTokenKind } from './sql-token.js';

/** MySQL's backslash escapes; `\%` and `\_` keep their backslash (they are LIKE escapes). */
const MYSQL_ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0',
  "'": "'",
  '"': '"',
  b: '\b',
  n: '\n',
  r: '\r',
  t: '\t',
  Z: '\x1a',
  '\\': '\\',
  '%': '\\%',
  _: '\\_',
};

/** Longest operators first. */
const OPERATORS = ['<=>', '->>', '!=', '<>', '<=', '>=', '||', '&&', '<<', '>>', ':=', '::', '->', '=='];

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isIdentifierStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code >= 0x80;
}

function isIdentifierPart(code: number): boolean {
  return isIdentifierStart(code) || isDigit(code) || code === 36;
}

function isBlank(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/**
 * Splits SQL text into tokens by the lexical rules of a dialect (blanks dropped, comments kept).
 * Never throws: an unclosed quote or comment becomes one token to the end, marked `unterminated`,
 * so that the caller decides (the dump reader rejects it, an engine lets the server report it).
 */
export function tokenizeSql(text: string, dialect: SqlDialect | SqlLexicalRules): SqlToken[] {
  return new Lexer(text, typeof dialect === 'string' ? lexicalRules(dialect) : dialect).run();
}

class Lexer {
  private pos = 0;
  private line = 1;
  private readonly tokens: SqlToken[] = [];

  constructor(
    private readonly text: string,
    private readonly rules: SqlLexicalRules,
  ) {}

  run(): SqlToken[] {
    const { text } = this;
    while (this.pos < text.length) {
      const code = text.charCodeAt(this.pos);
      if (isBlank(code)) {
        if (code === 10) this.line++;
        this.pos++;
      } else this.token(code);
    }
    return this.tokens;
  }

  private token(code: number): void {
    const { text, rules, pos } = this;
    const next = text.charCodeAt(pos + 1);
    const char = text[pos] as string;
    if (char === '-' && next === 45 && this.dashComment()) this.lineComment();
    else if (char === '#' && rules.hashComments) this.lineComment();
    else if (char === '/' && next === 42) this.blockComment();
    else if (char === "'") this.quoted('string', "'", pos, pos + 1, rules.backslashEscapes);
    else if (char === '"' && rules.doubleQuoted === 'string')
      this.quoted('string', '"', pos, pos + 1, rules.backslashEscapes);
    else if (char === '"') this.quoted('quoted-identifier', '"', pos, pos + 1, false);
    else if (char === '`') this.quoted('quoted-identifier', '`', pos, pos + 1, false);
    else if (char === '[' && rules.bracketIdentifiers) this.bracketIdentifier();
    else if (char === '$' && rules.dollarQuotes && this.dollarDelimiter() !== undefined) this.dollarQuote();
    else if (isDigit(code) || (char === '.' && isDigit(next))) this.number();
    else if (isIdentifierStart(code) || (char === '$' && rules.dollarStartsIdentifier)) this.word();
    else if (char === '@' || char === '?' || char === ':' || char === '$') this.variable();
    else this.symbol();
  }

  private push(
    kind: SqlTokenKind,
    start: number,
    end: number,
    value?: string,
    extra?: Partial<SqlToken>,
  ): void {
    const source = this.text.slice(start, end);
    this.tokens.push({ kind, text: source, value: value ?? source, start, end, line: this.line, ...extra });
  }

  /** Advances to `end`, counting the newlines passed over. */
  private advance(end: number): void {
    const { text } = this;
    for (let i = this.pos; i < end; i++) if (text.charCodeAt(i) === 10) this.line++;
    this.pos = end;
  }

  private dashComment(): boolean {
    if (!this.rules.dashCommentNeedsSpace) return true;
    const after = this.text.charCodeAt(this.pos + 2);
    return Number.isNaN(after) || isBlank(after);
  }

  private lineComment(): void {
    const { text, pos } = this;
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    this.push('comment', pos, end);
    this.pos = end;
  }

  private blockComment(): void {
    const { text, pos, rules } = this;
    let depth = 1;
    let i = pos + 2;
    while (i < text.length && depth > 0) {
      if (text.startsWith('*/', i)) {
        depth--;
        i += 2;
      } else if (rules.nestedBlockComments && text.startsWith('/*', i)) {
        depth++;
        i += 2;
      } else i++;
    }
    const unterminated = depth > 0;
    const conditional = rules.conditionalComments ? /^\/\*(M?)!(\d*)/.exec(text.slice(pos, pos + 12)) : null;
    if (conditional) {
      const bodyStart = pos + conditional[0].length;
      const body = text.slice(bodyStart, unterminated ? i : i - 2).trim();
      const digits = conditional[2] ?? '';
      this.push('conditional-comment', pos, i, body, {
        ...(digits ? { version: Number(digits) } : {}),
        ...(unterminated ? { unterminated: true } : {}),
      });
    } else this.push('comment', pos, i, undefined, unterminated ? { unterminated: true } : undefined);
    this.advance(i);
  }

  /**
   * A quoted string or identifier from `open` (the token start, prefix included) with its opening
   * quote at `bodyStart - 1`; a doubled quote stands for itself, and with `escapes` a backslash
   * escapes the next character as MySQL does.
   */
  private quoted(kind: SqlTokenKind, quote: string, open: number, bodyStart: number, escapes: boolean): void {
    const { text } = this;
    let value = '';
    let i = bodyStart;
    let chunk = i;
    let closed = false;
    while (i < text.length) {
      const char = text[i];
      if (char === quote) {
        if (text[i + 1] === quote) {
          value += text.slice(chunk, i + 1);
          i += 2;
          chunk = i;
          continue;
        }
        value += text.slice(chunk, i);
        i++;
        closed = true;
        break;
      }
      if (char === '\\' && escapes && i + 1 < text.length) {
        value += text.slice(chunk, i);
        const escaped = text[i + 1] as string;
        value += MYSQL_ESCAPES[escaped] ?? escaped;
        i += 2;
        chunk = i;
        continue;
      }
      i++;
    }
    if (!closed) value += text.slice(chunk, i);
    this.push(kind, open, i, value, closed ? undefined : { unterminated: true });
    this.advance(i);
  }

  /**
   * A token from here whose value starts at `bodyStart` and ends before the next `closer` (which
   * ends the token), or at the end of the text (unterminated).
   */
  private enclosed(kind: 'quoted-identifier' | 'string' | 'blob', bodyStart: number, closer: string): void {
    const { text, pos } = this;
    const close = text.indexOf(closer, bodyStart);
    const end = close < 0 ? text.length : close + closer.length;
    const value = text.slice(bodyStart, close < 0 ? end : close);
    this.push(kind, pos, end, value, close < 0 ? { unterminated: true } : undefined);
    this.advance(end);
  }

  /** SQLite's `[name]`. */
  private bracketIdentifier(): void {
    this.enclosed('quoted-identifier', this.pos + 1, ']');
  }

  /** The `$tag$` that opens a PostgreSQL dollar quote here, if one does (else `$` is a parameter). */
  private dollarDelimiter(): string | undefined {
    return /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(this.text.slice(this.pos, this.pos + 66))?.[0];
  }

  /** PostgreSQL `$tag$…$tag$`. */
  private dollarQuote(): void {
    const delimiter = this.dollarDelimiter() as string;
    this.enclosed('string', this.pos + delimiter.length, delimiter);
  }

  private number(): void {
    const { text, pos } = this;
    const hex = /^0[xX][0-9A-Fa-f]+/.exec(text.slice(pos, pos + 4096));
    let end: number;
    if (hex) end = pos + hex[0].length;
    else {
      end = pos;
      while (isDigit(text.charCodeAt(end))) end++;
      if (text[end] === '.') {
        end++;
        while (isDigit(text.charCodeAt(end))) end++;
      }
      const exponent = /^[eE][+-]?\d+/.exec(text.slice(end, end + 32));
      if (exponent) end += exponent[0].length;
    }
    // MySQL identifiers may start with digits (`1st`): a number glued to letters is a word.
    if (isIdentifierPart(text.charCodeAt(end)) && !text.slice(pos, end).includes('.')) this.word();
    else {
      this.push('number', pos, end);
      this.pos = end;
    }
  }

  private word(): void {
    const { text, pos, rules } = this;
    let end = pos + 1;
    while (end < text.length && isIdentifierPart(text.charCodeAt(end))) end++;
    const prefix = text[end] === "'" && end - pos === 1 ? text.slice(pos, end).toUpperCase() : '';
    if (prefix === 'X') this.hexBlob(end);
    else if (prefix === 'N') this.quoted('string', "'", pos, end + 1, rules.backslashEscapes);
    else if (prefix === 'E' && rules.dollarQuotes) this.quoted('string', "'", pos, end + 1, true);
    else {
      this.push('word', pos, end);
      this.pos = end;
    }
  }

  /** `X'…'`, the quote at `quote`. */
  private hexBlob(quote: number): void {
    this.enclosed('blob', quote + 1, "'");
  }

  private variable(): void {
    const { text, pos } = this;
    let end = pos + 1;
    if (text[pos] === '@' && text[end] === '@') end++;
    if (
      (text[pos] === ':' && text[end] === ':') ||
      (text[pos] === '$' && !isIdentifierPart(text.charCodeAt(end)))
    ) {
      this.symbol();
      return;
    }
    const quote = text[end];
    if (text[pos] === '@' && (quote === "'" || quote === '"' || quote === '`')) {
      const close = text.indexOf(quote, end + 1);
      end = close < 0 ? text.length : close + 1;
    } else while (end < text.length && isIdentifierPart(text.charCodeAt(end))) end++;
    if (end === pos + 1 && text[pos] !== '?') this.symbol();
    else {
      this.push('variable', pos, end);
      this.advance(end);
    }
  }

  private symbol(): void {
    const { text, pos } = this;
    const operator = OPERATORS.find((op) => text.startsWith(op, pos));
    const end = pos + (operator?.length ?? 1);
    this.push('symbol', pos, end);
    this.pos = end;
  }
}
