import { describe, expect, it } from 'vitest';
import type { SqlToken } from '../../../src/sql/dump/sql-token.js';
import { tokenizeSql } from '../../../src/sql/dump/tokenize-sql.js';

function kinds(tokens: SqlToken[]): string[] {
  return tokens.map((token) => `${token.kind}:${token.value}`);
}

describe('tokenizeSql (MySQL rules)', () => {
  it('unescapes backslash escapes and doubled quotes in strings', () => {
    const [a, b, c, d] = tokenizeSql(String.raw`'It\'s' 'a''b' "St. John's" 'x\ny\t\\z\%\_\Q'`, 'mysql');
    expect(a).toMatchObject({ kind: 'string', value: "It's", text: String.raw`'It\'s'` });
    expect(b?.value).toBe("a'b");
    expect(c).toMatchObject({ kind: 'string', value: "St. John's" });
    expect(d?.value).toBe('x\ny\t\\z\\%\\_Q');
  });

  it('reads backticks as identifiers (doubled backtick inside) and keeps `;` in quotes', () => {
    const tokens = tokenizeSql("SELECT `a``b`, `No.`, 'x;y' FROM `t`;", 'mysql');
    expect(kinds(tokens)).toEqual([
      'word:SELECT',
      'quoted-identifier:a`b',
      'symbol:,',
      'quoted-identifier:No.',
      'symbol:,',
      'string:x;y',
      'word:FROM',
      'quoted-identifier:t',
      'symbol:;',
    ]);
  });

  it('knows MySQL comments: `-- ` needs a blank, `#`, block and conditional comments', () => {
    const tokens = tokenizeSql(
      'a --x\n-- c;\n# d;\n/* e; */ /*!40101 SET NAMES utf8 */ /*M!100100 X */ b',
      'mysql',
    );
    expect(kinds(tokens)).toEqual([
      'word:a',
      'symbol:-',
      'symbol:-',
      'word:x',
      'comment:-- c;',
      'comment:# d;',
      'comment:/* e; */',
      'conditional-comment:SET NAMES utf8',
      'conditional-comment:X',
      'word:b',
    ]);
    expect(tokens[7]).toMatchObject({ version: 40101, line: 4 });
    expect(tokens[8]?.version).toBe(100100);
    expect(tokens[9]?.line).toBe(4);
  });

  it('reads numbers, signs, hex and blobs, variables and operators', () => {
    const tokens = tokenizeSql("-12 3.50 .5 1e-3 0x1F X'0a' N'n' @v @@sql_mode ? a<=>b 1st", 'mysql');
    expect(kinds(tokens)).toEqual([
      'symbol:-',
      'number:12',
      'number:3.50',
      'number:.5',
      'number:1e-3',
      'number:0x1F',
      'blob:0a',
      'string:n',
      'variable:@v',
      'variable:@@sql_mode',
      'variable:?',
      'word:a',
      'symbol:<=>',
      'word:b',
      'word:1st',
    ]);
  });

  it('counts lines across multi-line strings and comments', () => {
    const tokens = tokenizeSql("'a\nb'\n/* c\n d */ x", 'mysql');
    expect(tokens.map((token) => token.line)).toEqual([1, 3, 4]);
  });

  it('marks unclosed quotes and comments instead of throwing', () => {
    expect(tokenizeSql("SELECT 'abc", 'mysql')[1]).toMatchObject({
      kind: 'string',
      value: 'abc',
      unterminated: true,
    });
    expect(tokenizeSql('SELECT /* abc', 'mysql')[1]).toMatchObject({ kind: 'comment', unterminated: true });
    expect(tokenizeSql(String.raw`'abc\'`, 'mysql')[0]?.unterminated).toBe(true);
  });
});

describe('tokenizeSql (SQLite and PostgreSQL rules)', () => {
  it('SQLite: double quotes and brackets are identifiers, backslash is literal, `--x` is a comment', () => {
    const tokens = tokenizeSql(`${String.raw`SELECT "a""b", [c d], 'x\' --x`}\n$v :w`, 'sqlite');
    expect(kinds(tokens)).toEqual([
      'word:SELECT',
      'quoted-identifier:a"b',
      'symbol:,',
      'quoted-identifier:c d',
      'symbol:,',
      'string:x\\',
      'comment:--x',
      'variable:$v',
      'variable::w',
    ]);
  });

  it('SQLite: a backslash does not hide the closing quote (so `;` after it splits)', () => {
    const tokens = tokenizeSql(String.raw`SELECT 'a\'; DROP TABLE t; --'`, 'sqlite');
    expect(tokens.filter((token) => token.value === ';')).toHaveLength(2);
  });

  it('PostgreSQL: dollar quotes, E strings, nested comments, casts and parameters', () => {
    const tokens = tokenizeSql("$$a;b$$ $fn$ x $fn$ E'it\\'s' /* a /* b */ c */ x::int $1", 'postgres');
    expect(kinds(tokens)).toEqual([
      'string:a;b',
      'string: x ',
      "string:it's",
      'comment:/* a /* b */ c */',
      'word:x',
      'symbol:::',
      'word:int',
      'variable:$1',
    ]);
  });
});
