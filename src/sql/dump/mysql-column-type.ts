import type { TokenCursor } from './token-cursor.js';

const INTEGER_TYPES = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint']);

/** Synonyms MySQL itself resolves (`integer` is `int`, `real` is `double`, `numeric` is `decimal`). */
const SYNONYMS: Readonly<Record<string, string>> = {
  integer: 'int',
  int4: 'int',
  int8: 'bigint',
  real: 'double',
  numeric: 'decimal',
  dec: 'decimal',
  fixed: 'decimal',
  bool: 'tinyint(1)',
  boolean: 'tinyint(1)',
};

/**
 * Reads a column type at the cursor and returns it normalised: lower case, arguments without blanks,
 * integer display widths dropped (they carry no meaning since MySQL 8.0.17), MySQL's synonyms
 * resolved, `unsigned`/`zerofill` appended: `int`, `bigint unsigned`, `float(10,2)`,
 * `decimal(19,4)`, `varchar(255)`, `enum('a','b')`.
 */
export function parseMysqlType(cursor: TokenCursor): string {
  const token = cursor.next();
  if (token.kind !== 'word') throw cursor.error('expected a column type', token);
  let name = token.value.toLowerCase();
  if (name === 'double' && cursor.acceptKeywords('PRECISION')) name = 'double';
  if ((name === 'national' || name === 'long') && cursor.peek()?.kind === 'word') {
    name = `${name} ${cursor.next().value.toLowerCase()}`;
  }
  const args: string[] = [];
  if (cursor.acceptSymbol('(')) {
    do {
      const arg = cursor.next();
      if (arg.kind === 'number') args.push(arg.text);
      else if (arg.kind === 'string') args.push(`'${arg.value.replaceAll("'", "''")}'`);
      else throw cursor.error('expected a type argument', arg);
    } while (cursor.acceptSymbol(','));
    cursor.expectSymbol(')');
  }
  const modifiers: string[] = [];
  for (;;) {
    if (cursor.acceptKeywords('UNSIGNED')) modifiers.push('unsigned');
    else if (cursor.acceptKeywords('ZEROFILL')) modifiers.push('zerofill');
    else if (!cursor.acceptKeywords('SIGNED')) break;
  }
  const base = SYNONYMS[name] ?? name;
  let type = base;
  if (INTEGER_TYPES.has(name) || base.includes('(')) type = base;
  else if (base === 'decimal' && args.length === 0) type = 'decimal(10,0)';
  else if (args.length > 0) type = `${base}(${args.join(',')})`;
  return [type, ...modifiers].join(' ');
}
