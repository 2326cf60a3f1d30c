import type { EnvLanguage } from '../prompts/prompt-set.js';
import { dedent } from './code-blocks.js';
import { firstSqlStatement, firstSqlWord, SQL_KEYWORDS } from './first-sql-statement.js';
import type { ParsedAction } from './parsed-action.js';

/** How one environment's language is recognised and cleaned. */
export interface LanguageRule {
  /** The tag the prompts ask for (```` ```bash ````), for messages. */
  readonly tag: string;
  /** Fence tags taken as this language (`''`: an untagged fence). */
  readonly tags: ReadonlySet<string>;
  /** The code of a block's body, or why it is not runnable. */
  code(body: string): { code: string } | { reason: string };
  /** Whether `submit` takes an answer: `required` (CTF flag), `optional` (a function name), `none`. */
  readonly submitAnswer: 'required' | 'optional' | 'none';
}

const SHELL_TAGS = new Set(['', 'bash', 'sh', 'shell', 'console', 'shell-session', 'shellsession', 'zsh']);

const bashRule: LanguageRule = {
  tag: 'bash',
  tags: SHELL_TAGS,
  code: (body) => {
    const code = dedent(stripShellPrompts(body));
    return code === '' ? { reason: 'the code block is empty' } : { code };
  },
  submitAnswer: 'none',
};

const RULES: Readonly<Record<EnvLanguage, LanguageRule>> = {
  bash: bashRule,
  ctf: { ...bashRule, submitAnswer: 'required' },
  sql: {
    tag: 'sql',
    tags: new Set(['', 'sql', 'mysql', 'sqlite', 'sqlite3', 'postgresql', 'postgres', 'psql', 'pgsql']),
    code: (body) => {
      const statement = firstSqlStatement(body);
      if (statement === undefined) return { reason: 'the code block holds no SQL statement' };
      if (!SQL_KEYWORDS.has(firstSqlWord(statement))) {
        return { reason: `the code block does not start with a SQL statement: ${preview(statement)}` };
      }
      return { code: statement };
    },
    submitAnswer: 'none',
  },
  python: {
    tag: 'python',
    tags: new Set(['', 'python', 'python3', 'py']),
    code: (body) => {
      const code = dedent(body);
      return code === '' ? { reason: 'the code block is empty' } : { code };
    },
    submitAnswer: 'optional',
  },
};

/** The rule of an environment's language. */
export function languageRule(env: EnvLanguage): LanguageRule {
  return RULES[env];
}

/**
 * In a block that shows a terminal session (lines starting with `$ `), only the prompted lines are
 * commands (their `\` continuations kept); the other lines are shown output and dropped. A block
 * without prompts is returned unchanged.
 */
export function stripShellPrompts(body: string): string {
  const lines = body.replace(/\r\n?/g, '\n').split('\n');
  if (!lines.some((line) => /^\s*\$ /.test(line))) return body;
  const commands: string[] = [];
  let continued = false;
  for (const line of lines) {
    const prompted = /^\s*\$ (.*)$/.exec(line);
    if (prompted) commands.push(prompted[1]!);
    else if (continued) commands.push(line);
    else continue;
    continued = /\\\s*$/.test(line);
  }
  return commands.join('\n');
}

/**
 * `submit`, `submit <answer>` and `skip` as a whole answer (or a whole block), after the env's rule
 * for answers; `undefined` when `text` is not one of them.
 */
export function controlAction(text: string, rule: LanguageRule): ParsedAction | undefined {
  const trimmed = text.trim();
  if (/^skip\.?$/i.test(trimmed)) return { kind: 'skip' };
  const match = /^submit(?:\s*\[([^\n]*)\]|\s+([^\n]+)|\.?)$/i.exec(trimmed);
  if (!match) return undefined;
  const answer = (match[1] ?? match[2] ?? '').trim();
  if (answer === '') {
    return rule.submitAnswer === 'required'
      ? { kind: 'invalid', reason: 'submit needs the flag: submit picoCTF{...}' }
      : { kind: 'submit' };
  }
  if (rule.submitAnswer === 'none') {
    return { kind: 'invalid', reason: `submit takes no answer in ${rule.tag}: ${preview(answer)}` };
  }
  if (rule.submitAnswer === 'required' && /\s/.test(answer)) {
    return { kind: 'invalid', reason: `a flag has no spaces: ${preview(answer)}` };
  }
  if (rule.submitAnswer === 'optional' && !/^[A-Za-z_]\w*$/.test(answer)) {
    return { kind: 'invalid', reason: `submit takes the name of the function to test: ${preview(answer)}` };
  }
  return { kind: 'submit', answer };
}

/** A short one-line excerpt of model text for a reason. */
export function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}
