import type { EnvLanguage } from '../prompts/prompt-set.js';
import { runnable } from './action-parser.js';
import { codeBlocks } from './code-blocks.js';
import { controlAction, type LanguageRule, languageRule, preview } from './language-rule.js';
import type { ParsedAction } from './parsed-action.js';

/** A label line: `Thought:`, `Action 3:`, `**Action**:`. */
const ACTION_LABEL = /^[ \t]*\**Action(?:[ \t]*\d+)?\**[ \t]*:\**[ \t]*/im;
const THOUGHT_LABEL = /^[ \t]*\**Thought(?:[ \t]*\d+)?\**[ \t]*:\**[ \t]*/i;
/** The model writing the environment's part: everything from here on is ignored. */
const OBSERVATION_LINE = /^[ \t]*\**Observation(?:[ \t]*\d+)?\**[ \t]*:/im;
/** An action written without its label, at the start of a line. */
const UNLABELLED_ACTION = /^[ \t]*(?=execute[ \t]*\[|submit\b|skip\b)/m;

/**
 * The parser of ReAct answers: `Thought: …` then `Action: execute[<code>]`, `Action: submit` (CTF:
 * `submit[<flag>]` or `submit <flag>`; Python: `submit[<function>]`) or `Action: skip`. Text from a
 * line starting `Observation` on is ignored (the model imagining the environment). The code runs from
 * `execute[` to the last `]` of the action; a fence or backticks around it are removed, and it is
 * then cleaned by the language's rule (SQL: its first statement). Without an `Action` label, the
 * first line that starts with `execute[`, `submit` or `skip` is the action.
 */
export function reactParser(env: EnvLanguage): (text: string) => { thought?: string; action: ParsedAction } {
  const rule = languageRule(env);
  return (text) => {
    const observation = OBSERVATION_LINE.exec(text);
    const answer = observation ? text.slice(0, observation.index) : text;
    const label = ACTION_LABEL.exec(answer) ?? UNLABELLED_ACTION.exec(answer);
    const thoughtText = (label ? answer.slice(0, label.index) : answer)
      .trim()
      .replace(THOUGHT_LABEL, '')
      .trim();
    const thought = thoughtText === '' ? {} : { thought: thoughtText };
    if (!label) {
      return {
        ...thought,
        action: { kind: 'invalid', reason: 'the answer holds no Action: execute[...] or submit' },
      };
    }
    return { ...thought, action: parseReactAction(rule, answer.slice(label.index + label[0].length)) };
  };
}

function parseReactAction(rule: LanguageRule, text: string): ParsedAction {
  const action = unquote(text.trim());
  if (/^execute[ \t]*\[/i.test(action)) {
    const open = action.indexOf('[');
    const close = closingBracket(action, open);
    if (close <= open) return { kind: 'invalid', reason: 'execute[ has no closing ]' };
    const body = unwrap(rule, action.slice(open + 1, close));
    if ('reason' in body) return { kind: 'invalid', reason: body.reason };
    if (body.code.trim() === '') return { kind: 'invalid', reason: 'execute[] holds no code' };
    const found = runnable(rule, body.code);
    return 'action' in found ? found.action : { kind: 'invalid', reason: found.reason };
  }
  const firstLine = action.split('\n', 1)[0]!;
  const control = controlAction(firstLine, rule);
  if (control) return control;
  return { kind: 'invalid', reason: `the action is neither execute[...] nor submit: ${preview(action)}` };
}

/**
 * The `]` that closes the `[` at `open`, brackets inside quotes not counted; when the brackets do not
 * balance, the last `]` of the action.
 */
function closingBracket(text: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i += 1) {
    const c = text[i]!;
    if (quote !== undefined) {
      if (c === '\\' && quote !== "'") i += 1;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '[') depth += 1;
    else if (c === ']') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return text.lastIndexOf(']');
}

/** An action written as inline code (`` `execute[ls]` ``) loses its backticks. */
function unquote(action: string): string {
  const inline = /^`([^`]+)`/.exec(action);
  return inline ? inline[1]!.trim() : action;
}

/** The code inside `execute[…]`, without a fence or inline backticks around it. */
function unwrap(rule: LanguageRule, inner: string): { code: string } | { reason: string } {
  const trimmed = inner.trim();
  if (trimmed.startsWith('```')) {
    const block = codeBlocks(trimmed)[0];
    if (!block?.closed) return { reason: 'the code block inside execute[...] is not closed' };
    if (!rule.tags.has(block.lang)) {
      return { reason: `the code block inside execute[...] is tagged ${block.lang}, not ${rule.tag}` };
    }
    return { code: block.body };
  }
  const inline = /^`([^`]*)`$/.exec(trimmed);
  return { code: inline ? inline[1]! : trimmed };
}
