import { DumpParseError } from './dump-parse-error.js';
import { isKeyword, type SqlToken } from './sql-token.js';

/** Reads the tokens of one statement in order; every failure is a {@link DumpParseError} at a line. */
export class TokenCursor {
  private index = 0;

  constructor(
    private readonly tokens: readonly SqlToken[],
    /** Line reported when the statement ends too early. */
    private readonly endLine: number,
    /** The statement's text and its offset in the source, for {@link TokenCursor.source}. */
    private readonly text = '',
    private readonly offset = 0,
  ) {}

  /** The statement's source text from one token to another (both included). */
  source(first: SqlToken, last: SqlToken): string {
    return this.text.slice(first.start - this.offset, last.end - this.offset);
  }

  get done(): boolean {
    return this.index >= this.tokens.length;
  }

  peek(offset = 0): SqlToken | undefined {
    return this.tokens[this.index + offset];
  }

  next(): SqlToken {
    const token = this.tokens[this.index];
    if (!token) throw this.error('unexpected end of statement');
    this.index++;
    return token;
  }

  /** A parse error at the current token (or the statement's end). */
  error(message: string, token = this.peek()): DumpParseError {
    return new DumpParseError(token?.line ?? this.endLine, token ? `${message} at '${token.text}'` : message);
  }

  /** Consumes the keywords if they come next (all of them), else consumes nothing. */
  acceptKeywords(...keywords: string[]): boolean {
    if (!keywords.every((keyword, i) => isKeyword(this.peek(i), keyword))) return false;
    this.index += keywords.length;
    return true;
  }

  expectKeywords(...keywords: string[]): void {
    if (!this.acceptKeywords(...keywords)) throw this.error(`expected ${keywords.join(' ')}`);
  }

  acceptSymbol(symbol: string): boolean {
    const token = this.peek();
    if (token?.kind !== 'symbol' || token.value !== symbol) return false;
    this.index++;
    return true;
  }

  expectSymbol(symbol: string): void {
    if (!this.acceptSymbol(symbol)) throw this.error(`expected '${symbol}'`);
  }

  /** A bare or quoted identifier. */
  identifier(): string {
    const token = this.next();
    if (token.kind === 'word' || token.kind === 'quoted-identifier') return token.value;
    throw this.error('expected a name', token);
  }

  /** A possibly qualified name (`db`.`table`): the last part. */
  qualifiedName(): string {
    let name = this.identifier();
    while (this.acceptSymbol('.')) name = this.identifier();
    return name;
  }

  expectEnd(): void {
    if (!this.done) throw this.error('unexpected text');
  }
}
