import { chooseQuote, hex } from './python-str.js';

/** A Python `bytes` (or, with `mutable`, a `bytearray`, as older `mysql.connector` versions return). */
export class PyBytes {
  constructor(
    readonly bytes: Uint8Array,
    readonly mutable = false,
  ) {}
}

/**
 * Python's `repr(bytes)`: `b'...'` with printable ASCII kept and everything else escaped. With
 * `mutable`, `repr(bytearray)`: `bytearray(b'...')`, where CPython escapes `'` even inside double
 * quotes (`bytearray(b"it\\'s")`).
 */
export function pyBytesRepr(bytes: Uint8Array, mutable = false): string {
  const quote = chooseQuote(bytes.includes(0x27), bytes.includes(0x22));
  const escaped = mutable ? "'" : quote;
  let out = `b${quote}`;
  for (const byte of bytes) {
    const ch = String.fromCharCode(byte);
    if (ch === escaped || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (byte < 0x20 || byte >= 0x7f) out += `\\x${hex(byte, 2)}`;
    else out += ch;
  }
  out += quote;
  return mutable ? `bytearray(${out})` : out;
}
