import { describe, expect, it } from 'vitest';
import type { ParsedAction } from '../../../../src/agents/llm/parsers/parsed-action.js';
import { type ToolCallInput, toolCallParser } from '../../../../src/agents/llm/parsers/tool-call-parser.js';
import { TOOL_SPECS } from '../../../../src/agents/llm/parsers/tool-specs.js';
import type { EnvLanguage } from '../../../../src/agents/llm/prompts/prompt-set.js';

const F = '```';

/** A call as the client reports it: arguments parsed when the text is a JSON object. */
function call(name: string, argumentsText: string): ToolCallInput {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsText);
  } catch {
    parsed = undefined;
  }
  const args =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  return { name, arguments: args, argumentsText };
}

type Case = readonly [name: string, env: EnvLanguage, call: ToolCallInput, expected: ParsedAction | RegExp];

const code = (text: string): ParsedAction => ({ kind: 'code', code: text });
const json = (value: unknown): string => JSON.stringify(value);

const CASES: readonly Case[] = [
  ['bash: execute', 'bash', call('execute', json({ code: 'ls /tmp' })), code('ls /tmp')],
  ['bash: code in a bash fence', 'bash', call('execute', json({ code: `${F}bash\nls\n${F}` })), code('ls')],
  [
    'bash: code in a python fence',
    'bash',
    call('execute', json({ code: `${F}python\nprint(1)\n${F}` })),
    /python code block, not bash/,
  ],
  ['bash: missing code', 'bash', call('execute', json({})), /needs a "code" argument/],
  ['bash: code is a number', 'bash', call('execute', json({ code: 42 })), /must be a string/],
  ['bash: empty code', 'bash', call('execute', json({ code: '  ' })), /"code" is empty/],
  ['bash: arguments not JSON', 'bash', call('execute', '{"code": "ls'), /not a JSON object/],
  ['bash: arguments an array', 'bash', call('execute', '["ls"]'), /not a JSON object/],
  ['bash: unknown tool', 'bash', call('run_shell', json({ code: 'ls' })), /unknown tool run_shell/],
  ['bash: submit', 'bash', call('submit', '{}'), { kind: 'submit' }],
  ['bash: submit with an answer', 'bash', call('submit', json({ answer: 'done' })), /submit takes no answer/],
  ['bash: extra fields ignored', 'bash', call('execute', json({ code: 'pwd', reason: 'see' })), code('pwd')],
  [
    'sql: first statement',
    'sql',
    call('execute', json({ code: 'SHOW TABLES; SELECT 1' })),
    code('SHOW TABLES'),
  ],
  [
    'sql: prose as code',
    'sql',
    call('execute', json({ code: 'list the tables' })),
    /does not start with a SQL statement/,
  ],
  [
    'python: def',
    'python',
    call('execute', json({ code: 'def f(x):\n    return x' })),
    code('def f(x):\n    return x'),
  ],
  [
    'python: submit with the name',
    'python',
    call('submit', json({ answer: 'f' })),
    { kind: 'submit', answer: 'f' },
  ],
  [
    'python: submit with a sentence',
    'python',
    call('submit', json({ answer: 'my function f' })),
    /name of the function/,
  ],
  ['python: submit without a name', 'python', call('submit', '{}'), { kind: 'submit' }],
  [
    'ctf: submit a flag',
    'ctf',
    call('submit', json({ answer: 'picoCTF{ok}' })),
    { kind: 'submit', answer: 'picoCTF{ok}' },
  ],
  ['ctf: submit without the flag', 'ctf', call('submit', '{}'), /needs the flag/],
  ['ctf: answer not a string', 'ctf', call('submit', json({ answer: 7 })), /answer must be a string/],
];

describe('toolCallParser', () => {
  it.each(CASES)('%s', (_name, env, input, expected) => {
    const parsed = toolCallParser(env)(input);
    if (expected instanceof RegExp) {
      expect(parsed.kind).toBe('invalid');
      expect(parsed.kind === 'invalid' ? parsed.reason : '').toMatch(expected);
    } else {
      expect(parsed).toEqual(expected);
    }
  });
});

describe('TOOL_SPECS', () => {
  it('offers execute with a required code and submit with the answer each environment takes', () => {
    for (const env of ['bash', 'sql', 'python', 'ctf'] as const) {
      const [execute, submit] = TOOL_SPECS(env);
      expect(execute?.name).toBe('execute');
      expect(execute?.parameters).toMatchObject({ type: 'object', required: ['code'] });
      expect(submit?.name).toBe('submit');
      const properties = Object.keys((submit?.parameters.properties ?? {}) as object);
      expect(properties).toEqual(env === 'python' || env === 'ctf' ? ['answer'] : []);
      expect(submit?.parameters.required).toEqual(env === 'ctf' ? ['answer'] : []);
    }
  });
});
