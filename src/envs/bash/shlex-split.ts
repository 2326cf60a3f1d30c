/** Raised where Python's `shlex.split` raises `ValueError`. */
export class ShlexError extends Error {}

const WHITESPACE = new Set([' ', '\t', '\r', '\n']);

/**
 * Splits a string into words as Python's `shlex.split(s)` does (POSIX mode, no comments):
 * single quotes are literal, double quotes let a backslash escape only `"` and `\`, outside quotes a
 * backslash escapes any character, and an empty quoted word is kept. Upstream InterCode passed every
 * Bash command through it (inside `bash -c "…"`), which is what its compatibility mode reproduces.
 */
export function shlexSplit(text: string): string[] {
  const words: string[] = [];
  let state: ' ' | 'a' | "'" | '"' | '\\' = ' ';
  let escaped: 'a' | '"' | ' ' = 'a';
  let token = '';
  let quoted = false;
  for (const char of text) {
    switch (state) {
      case ' ':
      case 'a':
        if (WHITESPACE.has(char)) {
          if (state === 'a' || quoted) words.push(token);
          token = '';
          quoted = false;
          state = ' ';
        } else if (char === '\\') {
          escaped = 'a';
          state = '\\';
        } else if (char === "'" || char === '"') {
          state = char;
        } else {
          token += char;
          state = 'a';
        }
        break;
      case "'":
        if (char === "'") {
          quoted = true;
          state = 'a';
        } else token += char;
        break;
      case '"':
        if (char === '"') {
          quoted = true;
          state = 'a';
        } else if (char === '\\') {
          escaped = '"';
          state = '\\';
        } else token += char;
        break;
      case '\\':
        if (escaped === '"' && char !== '"' && char !== '\\') token += '\\';
        token += char;
        state = escaped === '"' ? '"' : 'a';
        break;
    }
  }
  if (state === "'" || state === '"') throw new ShlexError('No closing quotation');
  if (state === '\\') throw new ShlexError('No escaped character');
  if (state === 'a' || quoted) words.push(token);
  return words;
}
