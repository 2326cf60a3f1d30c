import { describe, expect, it } from 'vitest';
import { actionParser } from '../../../../src/agents/llm/parsers/action-parser.js';
import type { ParsedAction } from '../../../../src/agents/llm/parsers/parsed-action.js';
import type { EnvLanguage } from '../../../../src/agents/llm/prompts/prompt-set.js';

const F = '```';

type Case = readonly [name: string, env: EnvLanguage, text: string, expected: ParsedAction | RegExp];

const code = (text: string): ParsedAction => ({ kind: 'code', code: text });

/** `expected` as a RegExp: the answer is invalid and its reason matches. */
const CASES: readonly Case[] = [
  // Bash
  ['bash: one tagged block', 'bash', `${F}bash\nls -la /tmp\n${F}`, code('ls -la /tmp')],
  [
    'bash: prose around the block',
    'bash',
    `Sure! Here it is:\n${F}bash\nwc -l *.txt\n${F}\nThis counts lines.`,
    code('wc -l *.txt'),
  ],
  ['bash: sh tag', 'bash', `${F}sh\necho hi\n${F}`, code('echo hi')],
  ['bash: shell tag', 'bash', `${F}shell\necho hi\n${F}`, code('echo hi')],
  [
    'bash: console tag with $ prompt and output',
    'bash',
    `${F}console\n$ ls /data\na.txt b.txt\n${F}`,
    code('ls /data'),
  ],
  [
    'bash: $ prompt with a continuation',
    'bash',
    `${F}bash\n$ find / -name x \\\n  -type f\n${F}`,
    code('find / -name x \\\n  -type f'),
  ],
  ['bash: untagged block', 'bash', `${F}\ndu -sh /var\n${F}`, code('du -sh /var')],
  ['bash: python block only', 'bash', `${F}python\nprint(1)\n${F}`, /tagged python, not bash/],
  [
    'bash: python block, then bash block',
    'bash',
    `${F}python\nprint(1)\n${F}\nor\n${F}bash\necho 1\n${F}`,
    code('echo 1'),
  ],
  ['bash: two bash blocks: the first', 'bash', `${F}bash\nls\n${F}\n${F}bash\npwd\n${F}`, code('ls')],
  ['bash: empty block, then a command', 'bash', `${F}bash\n\n${F}\n${F}bash\ndate\n${F}`, code('date')],
  ['bash: only an empty block', 'bash', `${F}bash\n   \n${F}`, /empty/],
  ['bash: bare command is not run', 'bash', 'ls -la /tmp', /no ```bash code block/],
  ['bash: prose is not run', 'bash', 'The files can be listed with the ls command.', /no ```bash code block/],
  ['bash: refusal', 'bash', "I'm sorry, but I cannot help with that.", /refusal/],
  ['bash: another refusal', 'bash', 'I cannot run commands on your machine.', /refusal/],
  ['bash: unclosed fence', 'bash', `${F}bash\nrm -rf /tmp/wo`, /not closed/],
  ['bash: whole answer is one inline span', 'bash', '`cat /etc/hostname`', code('cat /etc/hostname')],
  [
    'bash: inline span inside prose is not run',
    'bash',
    'Run `ls` to see the files.',
    /no ```bash code block/,
  ],
  ['bash: collapsed newlines, inline tag', 'bash', `${F}bash ls -l /home${F}`, code('ls -l /home')],
  ['bash: submit', 'bash', 'submit', { kind: 'submit' }],
  ['bash: submit in a block', 'bash', `${F}bash\nsubmit\n${F}`, { kind: 'submit' }],
  ['bash: submit with text is refused', 'bash', 'submit the answer', /submit takes no answer/],
  ['bash: skip', 'bash', 'skip', { kind: 'skip' }],
  ['bash: empty answer', 'bash', '   \n ', /empty/],
  ['bash: indented block is dedented', 'bash', `1. Run:\n   ${F}bash\n   ls /x\n   ${F}`, code('ls /x')],
  ['bash: Windows line ends', 'bash', `${F}bash\r\nls /srv\r\n${F}\r\n`, code('ls /srv')],
  ['bash: attributes after the tag', 'bash', `${F}bash title="list"\nls /srv\n${F}`, code('ls /srv')],
  ['bash: command on the fence line', 'bash', `${F}bash ls /srv\n${F}`, code('ls /srv')],
  ['bash: a one-line block with only its tag is empty', 'bash', `${F}bash${F}`, /empty/],
  ['bash: untagged one-line block', 'bash', `${F}ls -l${F}`, code('ls -l')],
  ['bash: text tag is not code', 'bash', `${F}text\nfile1\n${F}`, /tagged text, not bash/],
  // SQL
  [
    'sql: one tagged block',
    'sql',
    `${F}sql\nSELECT name FROM singer;\n${F}`,
    code('SELECT name FROM singer'),
  ],
  [
    'sql: two statements: the first',
    'sql',
    `${F}sql\nSHOW TABLES; DESCRIBE singer;\n${F}`,
    code('SHOW TABLES'),
  ],
  [
    'sql: ; inside a string is kept',
    'sql',
    `${F}sql\nSELECT * FROM t WHERE a = 'x;y'; SELECT 2\n${F}`,
    code("SELECT * FROM t WHERE a = 'x;y'"),
  ],
  [
    'sql: escaped quote in a string',
    'sql',
    `${F}sql\nSELECT 'it\\'s;' AS a; DROP TABLE t\n${F}`,
    code("SELECT 'it\\'s;' AS a"),
  ],
  [
    'sql: leading comment skipped',
    'sql',
    `${F}sql\n-- count them; all\nSELECT COUNT(*) FROM t\n${F}`,
    code('SELECT COUNT(*) FROM t'),
  ],
  ['sql: mysql tag', 'sql', `${F}mysql\nshow tables\n${F}`, code('show tables')],
  ['sql: bash block', 'sql', `${F}bash\nmysql -e 'SELECT 1'\n${F}`, /tagged bash, not sql/],
  ['sql: prose in a block', 'sql', `${F}\nThe answer is 42\n${F}`, /does not start with a SQL statement/],
  [
    'sql: bare upper-case SELECT',
    'sql',
    'SELECT COUNT(*) FROM head WHERE age > 56',
    code('SELECT COUNT(*) FROM head WHERE age > 56'),
  ],
  [
    'sql: bare query, prose after a blank line',
    'sql',
    'SELECT name FROM t\n\nThis returns all names.',
    code('SELECT name FROM t'),
  ],
  ['sql: bare query with SQL: label', 'sql', 'SQL: SHOW TABLES;', code('SHOW TABLES')],
  ['sql: prose that starts with "Select"', 'sql', 'Select all singers from France.', /no ```sql code block/],
  [
    'sql: keyword mid-sentence is not a query',
    'sql',
    'I would SELECT the names FROM singer.',
    /no ```sql code block/,
  ],
  [
    'sql: WITH statement in a block',
    'sql',
    `${F}sql\nWITH a AS (SELECT 1) SELECT * FROM a\n${F}`,
    code('WITH a AS (SELECT 1) SELECT * FROM a'),
  ],
  [
    'sql: a statement that changes the session runs',
    'sql',
    `${F}sql
SET sql_mode = ''; SELECT 1
${F}`,
    code("SET sql_mode = ''"),
  ],
  [
    'sql: an ALTER statement runs (the paper ran them)',
    'sql',
    `${F}sql
ALTER TABLE t ADD COLUMN c INT;
${F}`,
    code('ALTER TABLE t ADD COLUMN c INT'),
  ],
  ['sql: submit', 'sql', 'submit', { kind: 'submit' }],
  ['sql: refusal', 'sql', 'Sorry, I am unable to access the database.', /refusal/],
  // Python
  [
    'python: def block kept whole',
    'python',
    `${F}python\nimport math\n\ndef area(r):\n    return math.pi * r ** 2\n${F}`,
    code('import math\n\ndef area(r):\n    return math.pi * r ** 2'),
  ],
  ['python: py tag', 'python', `${F}py\ndef f(x):\n    return x\n${F}`, code('def f(x):\n    return x')],
  [
    'python: bash block in a Python task',
    'python',
    `${F}bash\npython3 f.py\n${F}`,
    /tagged bash, not python/,
  ],
  [
    'python: bare def, prose after cut',
    'python',
    'def add(a, b):\n    return a + b\n\nThis function adds two numbers.',
    code('def add(a, b):\n    return a + b'),
  ],
  [
    'python: bare text that is not a def',
    'python',
    'You can use the built-in sum function.',
    /no ```python code block/,
  ],
  ['python: submit with the function name', 'python', 'submit add', { kind: 'submit', answer: 'add' }],
  ['python: submit with a sentence', 'python', 'submit the function above', /name of the function/],
  // CTF
  ['ctf: bash block', 'ctf', `${F}bash\ncat flag.txt\n${F}`, code('cat flag.txt')],
  [
    'ctf: submit a flag',
    'ctf',
    'submit picoCTF{s0me_fl4g}',
    { kind: 'submit', answer: 'picoCTF{s0me_fl4g}' },
  ],
  [
    'ctf: submit a flag in a block',
    'ctf',
    `${F}bash\nsubmit picoCTF{x_y}\n${F}`,
    { kind: 'submit', answer: 'picoCTF{x_y}' },
  ],
  [
    'ctf: Action: label before submit',
    'ctf',
    'Action: submit picoCTF{abc}',
    { kind: 'submit', answer: 'picoCTF{abc}' },
  ],
  ['ctf: submit without a flag', 'ctf', 'submit', /needs the flag/],
  ['ctf: flag in prose is not a submit', 'ctf', 'The flag is picoCTF{abc}.', /no ```bash code block/],
  ['ctf: skip', 'ctf', 'skip', { kind: 'skip' }],
];

describe('actionParser', () => {
  it.each(CASES)('%s', (_name, env, text, expected) => {
    const parsed = actionParser(env)(text);
    if (expected instanceof RegExp) {
      expect(parsed.kind).toBe('invalid');
      expect(parsed.kind === 'invalid' ? parsed.reason : '').toMatch(expected);
    } else {
      expect(parsed).toEqual(expected);
    }
  });

  it('never returns prose as code', () => {
    const prose = [
      'I think the answer is to list the files.',
      'Let me explain what this task needs before writing code.',
      'Select the rows where the age is over 30.',
      'The function should return the sum.',
    ];
    for (const env of ['bash', 'sql', 'python', 'ctf'] as const) {
      for (const text of prose) expect(actionParser(env)(text).kind).toBe('invalid');
    }
  });
});
