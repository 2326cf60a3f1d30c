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
 * block closes at the next run of at least as many backticks).
 */
export function codeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let position = 0;
  for (;;) {
    const open = text.indexOf('```', position);
    if (open < 0) return blocks;
    let fenceEnd = open;
    while (text[fenceEnd] === '`') fenceEnd += 1;
    const fence = text.slice(open, fenceEnd);
    const lineEnd = text.indexOf('\n', fenceEnd);
    const info = text.slice(fenceEnd, lineEnd < 0 ? text.length : lineEnd);
    let lang = '';
    let bodyStart = fenceEnd;
    const tagOnly = /^[ \t]*([\w+.#-]*)[ \t]*$/.exec(info);
    if (tagOnly && lineEnd >= 0) {
      lang = tagOnly[1]!.toLowerCase();
      bodyStart = lineEnd + 1;
    } else {
      const inline = /^([\w+-]+)[ \t]+/.exec(info);
      if (inline && INLINE_TAGS.has(inline[1]!.toLowerCase())) {
        lang = inline[1]!.toLowerCase();
        bodyStart = fenceEnd + inline[0].length;
      }
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
