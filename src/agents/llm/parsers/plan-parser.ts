/**
 * The parser of a Plan & Solve plan: its numbered items in order. Items are found by number, 1, 2,
 * 3, … each after the previous one: `1.` or `1)` (optionally `Step 1:`) at the start of a line or
 * after a space, followed by a space, so a plan whose newlines were collapsed still splits and
 * `2.5` inside a step does not. Text before item 1 (a heading) is dropped; an item ends where the
 * next number starts, or at the first blank line after the last item. Markdown bold around a step
 * is removed and inner whitespace collapsed. No item 1: an empty list.
 */
export function planParser(): (text: string) => string[] {
  return (text) => {
    const starts: { at: number; body: number; token: number }[] = [];
    let from = 0;
    for (let n = 1; ; n += 1) {
      const found = itemStart(text, n, from);
      if (!found) break;
      starts.push(found);
      from = found.token;
    }
    const steps: string[] = [];
    for (const [i, start] of starts.entries()) {
      const next = starts[i + 1];
      let body = text.slice(start.body, next ? Math.max(start.body, next.at) : text.length);
      if (!next) body = body.split(/\n[ \t]*\n/, 1)[0]!;
      const step = body.replace(/\*\*/g, '').replace(/\s+/g, ' ').trim();
      if (step !== '') steps.push(step);
    }
    return steps;
  };
}

function itemStart(
  text: string,
  n: number,
  from: number,
): { at: number; body: number; token: number } | undefined {
  const pattern = new RegExp(`(^|\\s)\\**(?:Step[ \\t]+${n}[.:)]|${n}[.)])\\**\\s+`, 'gi');
  pattern.lastIndex = from;
  const match = pattern.exec(text);
  if (!match) return undefined;
  // The next item's number may follow right after this one's whitespace (an empty item).
  const token = match.index + match[0].trimEnd().length;
  return { at: match.index + match[1]!.length, body: match.index + match[0].length, token };
}
