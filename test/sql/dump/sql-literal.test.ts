import { describe, expect, it } from 'vitest';
import { literalToSql, numberLiteral } from '../../../src/sql/dump/sql-literal.js';

describe('SqlLiteral', () => {
  it('classifies number literals as written', () => {
    expect(numberLiteral('-12')).toEqual({ kind: 'integer', text: '-12' });
    expect(numberLiteral('3.50')).toEqual({ kind: 'decimal', text: '3.50' });
    expect(numberLiteral('.5')).toEqual({ kind: 'decimal', text: '.5' });
    expect(numberLiteral('1.5E-3')).toEqual({ kind: 'float', text: '1.5E-3' });
    expect(numberLiteral('0x1F')).toBeUndefined();
  });

  it('writes literals back as SQL of each dialect', () => {
    const text = { kind: 'string', value: "it's a \\ path" } as const;
    expect(literalToSql(text, 'sqlite')).toBe("'it''s a \\ path'");
    expect(literalToSql(text, 'postgres')).toBe("'it''s a \\ path'");
    expect(literalToSql(text, 'mysql')).toBe("'it''s a \\\\ path'");
    expect(literalToSql({ kind: 'bytes', hex: '00FF' }, 'mysql')).toBe("X'00FF'");
    expect(literalToSql({ kind: 'bytes', hex: '00FF' }, 'postgres')).toBe("'\\x00FF'::bytea");
    expect(literalToSql({ kind: 'decimal', text: '2.50' }, 'postgres')).toBe('2.50');
    expect(literalToSql({ kind: 'null' }, 'mysql')).toBe('NULL');
  });
});
