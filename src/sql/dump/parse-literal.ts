import { NULL_LITERAL, numberLiteral, type SqlLiteral } from './sql-literal.js';
import { isKeyword } from './sql-token.js';
import type { TokenCursor } from './token-cursor.js';

/**
 * Reads one literal value as mysqldump writes them: `NULL`, a signed number, a string (with an
 * optional character-set introducer such as `_utf8mb4` or `_binary`; adjacent strings concatenate,
 * as in MySQL), `X'…'`/`0x…` bytes, `TRUE`/`FALSE` (MySQL's 1 and 0).
 */
export function parseLiteral(cursor: TokenCursor): SqlLiteral {
  const token = cursor.next();
  switch (token.kind) {
    case 'word': {
      const word = token.value.toUpperCase();
      if (word === 'NULL') return NULL_LITERAL;
      if (word === 'TRUE') return { kind: 'integer', text: '1' };
      if (word === 'FALSE') return { kind: 'integer', text: '0' };
      if (word.startsWith('_') && cursor.peek()?.kind === 'string') return parseLiteral(cursor);
      break;
    }
    case 'symbol':
      if (token.value === '-' || token.value === '+') {
        const number = cursor.peek();
        if (number?.kind === 'number') {
          cursor.next();
          const literal = numberLiteral(`${token.value === '-' ? '-' : ''}${number.text}`);
          if (literal) return literal;
        }
      }
      break;
    case 'number': {
      const literal = numberLiteral(token.text);
      if (literal) return literal;
      if (/^0x[0-9a-f]+$/i.test(token.text)) return { kind: 'bytes', hex: token.text.slice(2).toUpperCase() };
      break;
    }
    case 'string': {
      let value = token.value;
      while (cursor.peek()?.kind === 'string') value += cursor.next().value;
      return { kind: 'string', value };
    }
    case 'blob':
      if (/^[0-9a-f]*$/i.test(token.value)) return { kind: 'bytes', hex: token.value.toUpperCase() };
      break;
    default:
      break;
  }
  throw cursor.error('expected a literal value', token);
}

/** Whether the next token starts an expression default such as `CURRENT_TIMESTAMP` or `(expr)`. */
export function startsExpressionDefault(cursor: TokenCursor): boolean {
  const token = cursor.peek();
  if (token?.kind === 'symbol' && token.value === '(') return true;
  return (
    token?.kind === 'word' &&
    !isKeyword(token, 'NULL') &&
    !isKeyword(token, 'TRUE') &&
    !isKeyword(token, 'FALSE') &&
    !token.value.startsWith('_')
  );
}
