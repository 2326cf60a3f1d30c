/**
 * Code points Python's `str.isprintable()` rejects: general categories Cc, Cf, Cs, Co, Cn, Zl, Zp
 * and Zs, except the ASCII space (checked before this is used).
 */
const NON_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

/** Printable ASCII without a backslash: its repr needs no escape but the quote's. */
const PLAIN_ASCII = /^[\x20-\x5b\x5d-\x7e]*$/;

export const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');

/** The quote Python picks for a str/bytes repr: `'` unless the text has `'` and no `"`. */
export function chooseQuote(hasSingle: boolean, hasDouble: boolean): string {
  return hasSingle && !hasDouble ? '"' : "'";
}

/**
 * Python's `repr(str)`: quoted (the quote as `chooseQuote` picks it), with `\\`, the quote,
 * `\t`, `\n`, `\r` escaped; other ASCII control characters and DEL as `\xNN`; non-ASCII characters
 * kept when printable and otherwise escaped as `\xNN` (up to U+00FF), `\uNNNN` or `\UNNNNNNNN`.
 */
export function pyStrRepr(text: string): string {
  // Most database text is printable ASCII without a backslash: it is only quoted. The checks pick
  // the quote exactly as below (no escapes are needed: no backslash, no control characters).
  if (PLAIN_ASCII.test(text)) {
    if (!text.includes("'")) return `'${text}'`;
    if (!text.includes('"')) return `"${text}"`;
  }
  const quote = chooseQuote(text.includes("'"), text.includes('"'));
  let out = quote;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f) out += ch;
    else if (!NON_PRINTABLE.test(ch)) out += ch;
    else if (cp <= 0xff) out += `\\x${hex(cp, 2)}`;
    else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + quote;
}
