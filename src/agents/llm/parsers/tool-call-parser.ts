import type { EnvLanguage } from '../prompts/prompt-set.js';
import { codeBlocks } from './code-blocks.js';
import { controlAction, languageRule, preview } from './language-rule.js';
import type { ParsedAction } from './parsed-action.js';

/** A tool call as the parser needs it (the model client's `ToolCall` fits). */
export interface ToolCallInput {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>> | undefined;
  readonly argumentsText: string;
}

/**
 * The parser of native tool calls (`TOOL_SPECS`): `execute` needs a non-empty string `code` (a
 * fence of the language around it is removed; SQL keeps its first statement), `submit` takes an
 * optional string `answer` under the environment's rule (required for CTF, a function name for
 * Python, none for Bash and SQL). Unknown tools, arguments that are not JSON, a missing or
 * non-string field are `invalid` with a reason naming it; unknown extra fields are ignored.
 */
export function toolCallParser(env: EnvLanguage): (call: ToolCallInput) => ParsedAction {
  const rule = languageRule(env);
  return (call) => {
    const args = call.arguments;
    if (call.name !== 'execute' && call.name !== 'submit') {
      return { kind: 'invalid', reason: `unknown tool ${preview(call.name)}: use execute or submit` };
    }
    if (args === undefined) {
      return {
        kind: 'invalid',
        reason: `the ${call.name} arguments are not a JSON object: ${preview(call.argumentsText)}`,
      };
    }
    if (call.name === 'submit') {
      const answer = args.answer;
      if (answer !== undefined && answer !== null && typeof answer !== 'string') {
        return { kind: 'invalid', reason: 'submit: answer must be a string' };
      }
      const text = typeof answer === 'string' && answer.trim() !== '' ? `submit ${answer.trim()}` : 'submit';
      return (
        controlAction(text, rule) ?? {
          kind: 'invalid',
          reason: `submit: bad answer ${preview(String(answer))}`,
        }
      );
    }
    const code = args.code;
    if (code === undefined) return { kind: 'invalid', reason: 'execute needs a "code" argument' };
    if (typeof code !== 'string') return { kind: 'invalid', reason: 'execute: "code" must be a string' };
    let body = code;
    const block = code.trim().startsWith('```') ? codeBlocks(code.trim())[0] : undefined;
    if (block) {
      if (!block.closed || !rule.tags.has(block.lang)) {
        return {
          kind: 'invalid',
          reason: `execute: "code" holds a ${block.lang || 'broken'} code block, not ${rule.tag}`,
        };
      }
      body = block.body;
    }
    const cleaned = rule.code(body);
    return 'code' in cleaned
      ? { kind: 'code', code: cleaned.code }
      : { kind: 'invalid', reason: `execute: ${cleaned.reason.replace('the code block', '"code"')}` };
  };
}
