import { useState } from 'preact/hooks';

/** Characters shown before "show all" on a long text. */
const SHOWN = 20_000;

/** Control characters other than new line and tab (and DEL). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is found.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/**
 * A text as the run holds it, made visible: each control character other than new line and tab is
 * a marked `\xNN` (an ANSI escape `ESC[31m` reads `\x1b[31m`), never interpreted by the page.
 */
export function visibleText(text: string): (string | preact.JSX.Element)[] {
  const parts: (string | preact.JSX.Element)[] = [];
  let last = 0;
  for (const match of text.matchAll(CONTROL)) {
    const at = match.index;
    if (at > last) parts.push(text.slice(last, at));
    const code = match[0].charCodeAt(0).toString(16).padStart(2, '0');
    parts.push(
      <span class="control" title={`control character U+00${code.toUpperCase()}`}>
        \x{code}
      </span>,
    );
    last = at + 1;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/** A pre-formatted text block; a long one shows its start and a button for the rest. */
export function TextBlock(props: { text: string; testId?: string; empty?: string }) {
  const [all, setAll] = useState(false);
  const { text } = props;
  if (text === '')
    return (
      <pre class="text empty" data-testid={props.testId}>
        {props.empty ?? '(empty)'}
      </pre>
    );
  const cut = !all && text.length > SHOWN;
  return (
    <div class="text-block">
      <pre class="text" data-testid={props.testId}>
        {visibleText(cut ? text.slice(0, SHOWN) : text)}
      </pre>
      {cut ? (
        <button type="button" class="more" onClick={() => setAll(true)}>
          … {(text.length - SHOWN).toLocaleString('en')} more characters: show all
        </button>
      ) : null}
    </div>
  );
}
