/** True when parsing `prefix` fails only because the text ends there (it could still be valid JSON). */
function endsEarly(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return true;
  } catch (error) {
    const message = (error as Error).message;
    if (message.includes('Unexpected end of JSON input')) return true;
    const position = /at position (\d+)/.exec(message)?.[1];
    return position !== undefined && Number(position) >= prefix.length;
  }
}

/**
 * The line (from 1) of the first syntax error of a text JSON.parse rejects, found by bisecting on
 * prefixes (JavaScript engines do not always say where the error is); the last line when the text
 * ends too early.
 */
export function jsonErrorLine(text: string): number {
  if (endsEarly(text)) return text.trimEnd().split('\n').length;
  let good = 0;
  let bad = text.length;
  while (bad - good > 1) {
    const middle = Math.floor((good + bad) / 2);
    if (endsEarly(text.slice(0, middle))) good = middle;
    else bad = middle;
  }
  return text.slice(0, bad - 1).split('\n').length;
}
