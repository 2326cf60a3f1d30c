import { describe, expect, it } from 'vitest';
import type { ParsedAction } from '../../../../src/agents/llm/parsers/parsed-action.js';
import { reactParser } from '../../../../src/agents/llm/parsers/react-parser.js';
import type { EnvLanguage } from '../../../../src/agents/llm/prompts/prompt-set.js';

const F = '```';

type Case = readonly [
  name: string,
  env: EnvLanguage,
  text: string,
  thought: string | undefined,
  expected: ParsedAction | RegExp,
];

const code = (text: string): ParsedAction => ({ kind: 'code', code: text });

const CASES: readonly Case[] = [
  [
    'sql: thought and execute',
    'sql',
    'Thought: list the tables\nAction: execute[SHOW TABLES]',
    'list the tables',
    code('SHOW TABLES'),
  ],
  [
    'sql: numbered labels',
    'sql',
    'Thought 2: check columns\nAction 2: execute[DESCRIBE singer]',
    'check columns',
    code('DESCRIBE singer'),
  ],
  [
    'sql: statement cut at ;',
    'sql',
    'Thought: go\nAction: execute[SELECT 1; SELECT 2]',
    'go',
    code('SELECT 1'),
  ],
  [
    'sql: submit',
    'sql',
    'Thought: that is the answer\nAction: submit',
    'that is the answer',
    { kind: 'submit' },
  ],
  [
    'sql: invented observation ignored',
    'sql',
    'Thought: t\nAction: execute[SHOW TABLES]\nObservation: singer\nThought: next\nAction: submit',
    't',
    code('SHOW TABLES'),
  ],
  [
    'sql: code fence inside execute',
    'sql',
    `Thought: t\nAction: execute[${F}sql\nSELECT name FROM t\n${F}]`,
    't',
    code('SELECT name FROM t'),
  ],
  ['sql: backticks inside execute', 'sql', 'Thought: t\nAction: execute[`SELECT 1`]', 't', code('SELECT 1')],
  ['sql: whole action in backticks', 'sql', 'Thought: t\nAction: `execute[SELECT 2]`', 't', code('SELECT 2')],
  [
    'sql: bold labels',
    'sql',
    '**Thought**: look\n**Action**: execute[SHOW TABLES]',
    'look',
    code('SHOW TABLES'),
  ],
  [
    'sql: prose inside execute',
    'sql',
    'Thought: t\nAction: execute[find the singers]',
    't',
    /does not start with a SQL statement/,
  ],
  [
    'sql: no action at all',
    'sql',
    'Thought: I am not sure what to do.',
    'I am not sure what to do.',
    /no Action/,
  ],
  ['sql: unknown action', 'sql', 'Thought: t\nAction: search[singers]', 't', /neither execute/],
  [
    'bash: brackets inside the command',
    'bash',
    'Thought: t\nAction: execute[[ -d /b ] || mkdir /b]',
    't',
    code('[ -d /b ] || mkdir /b'),
  ],
  [
    'bash: prose with brackets after the action',
    'bash',
    'Thought: t\nAction: execute[ls /x]\n(I expect [a list])',
    't',
    code('ls /x'),
  ],
  [
    'bash: quoted ] inside the command',
    'bash',
    "Thought: t\nAction: execute[tr -d ']' < f]",
    't',
    code("tr -d ']' < f"),
  ],
  ['bash: unclosed execute', 'bash', 'Thought: t\nAction: execute[ls -la', 't', /no closing/],
  ['bash: empty execute', 'bash', 'Thought: t\nAction: execute[]', 't', /no code/],
  [
    'bash: python fence inside execute',
    'bash',
    `Thought: t\nAction: execute[${F}python\nprint(1)\n${F}]`,
    't',
    /tagged python, not bash/,
  ],
  [
    'bash: no Action label, action on its own line',
    'bash',
    'I should count them.\nexecute[wc -l f]',
    'I should count them.',
    code('wc -l f'),
  ],
  [
    'bash: submit with text refused',
    'bash',
    'Thought: t\nAction: submit[done]',
    't',
    /submit takes no answer/,
  ],
  [
    'bash: refusal',
    'bash',
    "I'm sorry, I can't help with that.",
    "I'm sorry, I can't help with that.",
    /no Action/,
  ],
  ['bash: no thought', 'bash', 'Action: execute[pwd]', undefined, code('pwd')],
  [
    'python: multi-line def',
    'python',
    'Thought: define it\nAction: execute[def f(xs):\n    return xs[-1]]',
    'define it',
    code('def f(xs):\n    return xs[-1]'),
  ],
  [
    'python: submit with the name',
    'python',
    'Thought: ready\nAction: submit[f]',
    'ready',
    { kind: 'submit', answer: 'f' },
  ],
  [
    'ctf: submit with brackets',
    'ctf',
    'Thought: found\nAction: submit[picoCTF{a_b}]',
    'found',
    { kind: 'submit', answer: 'picoCTF{a_b}' },
  ],
  [
    'ctf: submit with a space',
    'ctf',
    'Thought: found\nAction: submit picoCTF{a_b}',
    'found',
    { kind: 'submit', answer: 'picoCTF{a_b}' },
  ],
  ['ctf: submit without the flag', 'ctf', 'Thought: done\nAction: submit', 'done', /needs the flag/],
  ['ctf: skip', 'ctf', 'Thought: no idea\nAction: skip', 'no idea', { kind: 'skip' }],
  [
    'ctf: flag only in the thought',
    'ctf',
    'Thought: the flag is picoCTF{x}',
    'the flag is picoCTF{x}',
    /no Action/,
  ],
];

describe('reactParser', () => {
  it.each(CASES)('%s', (_name, env, text, thought, expected) => {
    const parsed = reactParser(env)(text);
    expect(parsed.thought).toBe(thought);
    if (expected instanceof RegExp) {
      expect(parsed.action.kind).toBe('invalid');
      expect(parsed.action.kind === 'invalid' ? parsed.action.reason : '').toMatch(expected);
    } else {
      expect(parsed.action).toEqual(expected);
    }
  });
});
