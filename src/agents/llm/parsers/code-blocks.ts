/** A fenced code block found in a model's answer. */
export interface CodeBlock {
  /** The fence's language tag, lower-cased; `''` when it has none. */
  readonly lang: string;
  readonly body: string;
  /** False when the answer ended before the closing fence (a cut-off answer). */
  readonly closed: boolean;
}

/**
 * Language tags recognised on the same line as the code (```` ```bash ls``` ````, the form answers
 * take when their newlines were collapsed); any other word right after a fence on a line with code
 * is read as code, not as a tag.
 */
const INLINE_TAGS = new Set([
  'bash',
  'sh',
  'shell',
  'console',
  'zsh',
  'sql',
  'mysql',
  'sqlite',
  'postgresql',
  'postgres',
  'python',
  'python3',
  'py',
  'text',
]);

/**
 * The fenced blocks of `text` in order (fences of three or more backticks, anywhere in the text; a
 * block closes at the next run of at least as many backticks). The tag is the first word after the
 * opening fence; what follows it on that line is code, unless it looks like attributes
 * (`title="x"`, `{.line-numbers}`). A block opened and closed on one line (an answer whose newlines
 * were collapsed) has a tag only when its first word is a known language.
 */
export function codeBlocks(raw: string): CodeBlock[] {
  const text = raw.replace(/\r\n?/g, '\n');
  const blocks: CodeBlock[] = [];
  let position = 0;
  for (;;) {
    const open = text.indexOf('```', position);
    if (open < 0) return blocks;
    let fenceEnd = open;
    while (text[fenceEnd] === '`') fenceEnd += 1;
    const fence = text.slice(open, fenceEnd);
    const newline = text.indexOf('\n', fenceEnd);
    const lineEnd = newline < 0 ? text.length : newline;
    const sameLineClose = text.indexOf(fence, fenceEnd);
    const oneLine = sameLineClose >= 0 && sameLineClose < lineEnd;
    let lang = '';
    let bodyStart = fenceEnd;
    const word = /^[ \t]*([^\s`]*)[ \t]*/.exec(text.slice(fenceEnd, lineEnd))!;
    const rest = text.slice(fenceEnd + word[0].length, lineEnd);
    if (oneLine) {
      if (INLINE_TAGS.has(word[1]!.toLowerCase())) {
        lang = word[1]!.toLowerCase();
        bodyStart = fenceEnd + word[0].length;
      }
    } else {
      lang = word[1]!.toLowerCase();
      const attributes = rest === '' || /^[{.]|=/.test(rest);
      bodyStart = attributes ? Math.min(lineEnd + 1, text.length) : fenceEnd + word[0].length;
    }
    const close = text.indexOf(fence, bodyStart);
    if (close < 0) {
      blocks.push({ lang, body: text.slice(bodyStart), closed: false });
      return blocks;
    }
    blocks.push({ lang, body: text.slice(bodyStart, close), closed: true });
    position = close;
    while (text[position] === '`') position += 1;
  }
}

/** Removes the indentation every non-blank line shares, and blank lines at both ends. */
export function dedent(code: string): string {
  const lines = code.replace(/\r\n?/g, '\n').split('\n');
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  let common: number | undefined;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const indent = /^[ \t]*/.exec(line)![0].length;
    common = common === undefined ? indent : Math.min(common, indent);
  }
  return lines
    .map((line) => line.slice(common ?? 0).trimEnd())
    .join('\n')
    .trimEnd();
}
