import type { EnvLanguage } from '../prompts/prompt-set.js';
import { firstSqlStatement } from './first-sql-statement.js';

/** Upper-case first words that make an unfenced answer a SQL query. */
const BARE_SQL_START = /^(?:SELECT|WITH|SHOW|DESCRIBE|DESC|EXPLAIN)\s/;

/** First lines that start an unfenced Python answer. */
const BARE_PYTHON_START = /^(?:def |async def |class |import |from [\w.]+ import |@)/;

/** Top-level lines an unfenced Python answer may hold after its start: definitions and assignments. */
const PYTHON_TOP_LEVEL =
  /^(?:def |async def |class |import |from [\w.]+ import |@|#|[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_]\w*)*\s*\+?=|[)\]}])/;

/**
 * The code of an answer without a fence, where the language allows one (docs: what each parser
 * accepts). SQL: a statement whose first word is an upper-case query keyword (after an optional
 * `SQL:` label), to its first `;` or, without one, to the first blank line. Python: text that starts
 * with a definition or an import, up to the first top-level line that is not a definition, an
 * import, an assignment, a decorator or a comment. Bash and CTF: never (a command cannot be told
 * from a sentence).
 */
export function bareCode(env: EnvLanguage, text: string): string | undefined {
  switch (env) {
    case 'sql': {
      const unlabelled = text.replace(/^(?:sql|query)\s*:\s*/i, '');
      if (!BARE_SQL_START.test(unlabelled)) return undefined;
      const paragraph = unlabelled.split(/\n[ \t]*\n/, 1)[0]!;
      return firstSqlStatement(paragraph);
    }
    case 'python':
      return barePython(text);
    case 'bash':
    case 'ctf':
      return undefined;
  }
}

function barePython(text: string): string | undefined {
  if (!BARE_PYTHON_START.test(text)) return undefined;
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (const line of lines) {
    const topLevel = line !== '' && !/^[ \t]/.test(line);
    if (topLevel && !PYTHON_TOP_LEVEL.test(line)) break;
    kept.push(line.trimEnd());
  }
  const code = kept.join('\n').trim();
  return /(?:^|\n)(?:async )?def |(?:^|\n)class /.test(code) ? code : undefined;
}
