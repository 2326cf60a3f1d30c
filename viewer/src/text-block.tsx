import { useState } from 'preact/hooks';

/** Characters shown before "show all" on a long text. */
const SHOWN = 20_000;

/**
 * A text as the run holds it, made visible: control characters other than new line and tab are
 * shown as their Unicode pictures (an ANSI escape `ESC[31m` reads `␛[31m`), never interpreted.
 */
export function visibleText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is replaced.
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (char) =>
    char === '\u007f' ? '\u2421' : String.fromCharCode(0x2400 + char.charCodeAt(0)),
  );
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
