import type { EnvLanguage } from '../prompts/prompt-set.js';
import { bareCode } from './bare-code.js';
import { codeBlocks } from './code-blocks.js';
import { controlAction, type LanguageRule, languageRule } from './language-rule.js';
import type { ParsedAction } from './parsed-action.js';

/** Answers that decline the task: reported as refusals rather than as a missing block. */
const REFUSAL =
  /^(?:I(?:'m| am)? (?:sorry|afraid|unable|not able)|I (?:cannot|can't|can not|won't|will not)|Sorry|As an AI)/i;

/**
 * The parser of the answers of `single`, `try-again` and Plan & Solve steps: the first runnable
 * fenced block of the environment's language (several blocks: earlier blocks of another language,
 * empty or not runnable are passed over), a whole-answer `submit`/`skip`, or the bare forms the
 * language allows (`bareCode`). Anything else is `invalid` with a one-line reason.
 */
export function actionParser(env: EnvLanguage): (text: string) => ParsedAction {
  const rule = languageRule(env);
  return (text) => parseAnswer(env, rule, text);
}

function parseAnswer(env: EnvLanguage, rule: LanguageRule, text: string): ParsedAction {
  const trimmed = text.trim().replace(/^action\s*:\s*/i, '');
  if (trimmed === '') return { kind: 'invalid', reason: 'the answer is empty' };
  const control = controlAction(trimmed, rule);
  if (control) return control;

  const blocks = codeBlocks(trimmed);
  if (blocks.length > 0) {
    let firstReason: string | undefined;
    for (const block of blocks) {
      let reason: string;
      if (!rule.tags.has(block.lang)) {
        reason = `the code block is tagged ${block.lang}, not ${rule.tag}`;
      } else if (!block.closed) {
        reason = 'the code block is not closed (the answer was cut off)';
      } else {
        const found = runnable(rule, block.body);
        if ('action' in found) return found.action;
        reason = found.reason;
      }
      firstReason ??= reason;
    }
    return { kind: 'invalid', reason: firstReason! };
  }

  const inline = /^`([^`\n]+)`$/.exec(trimmed);
  if (inline) {
    const found = runnable(rule, inline[1]!);
    return 'action' in found ? found.action : { kind: 'invalid', reason: found.reason };
  }
  const bare = bareCode(env, trimmed);
  if (bare !== undefined) return { kind: 'code', code: bare };
  if (REFUSAL.test(trimmed)) return { kind: 'invalid', reason: 'the answer is a refusal, not code' };
  return { kind: 'invalid', reason: `the answer holds no \`\`\`${rule.tag} code block` };
}

/** A block's body as an action: a control form, or the language's code. */
export function runnable(rule: LanguageRule, body: string): { action: ParsedAction } | { reason: string } {
  const control = controlAction(body, rule);
  if (control) return control.kind === 'invalid' ? { reason: control.reason } : { action: control };
  const code = rule.code(body);
  return 'code' in code ? { action: { kind: 'code', code: code.code } } : code;
}
