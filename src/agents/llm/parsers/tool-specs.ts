import type { ToolSpec } from '../model-client.js';
import type { EnvLanguage } from '../prompts/prompt-set.js';

const CODE_DESCRIPTION: Readonly<Record<EnvLanguage, string>> = {
  bash: 'One Bash command (or a short script) to run in the shell; its output comes back as the result.',
  sql: 'One SQL statement to run on the database; its rows come back as the result.',
  python: 'Python code to run in the interpreter, such as the full definition of the requested function.',
  ctf: 'One Bash command to run in the challenge machine; its output comes back as the result.',
};

const SUBMIT: Readonly<Record<EnvLanguage, { description: string; answer?: string; required: boolean }>> = {
  bash: { description: 'Finish the task: the state of the system is scored now.', required: false },
  sql: { description: 'Finish the task: the result of the last statement is scored now.', required: false },
  python: {
    description: 'Finish the task: the named function is tested now.',
    answer: 'The name of the function to test.',
    required: false,
  },
  ctf: {
    description: 'Finish the task with the flag you found.',
    answer: 'The flag, for example picoCTF{...}.',
    required: true,
  },
};

/**
 * The tools of the `tools` strategy in an environment: `execute` with `{ code }` and `submit` with
 * `{ answer? }` (the CTF flag is required; the Python function name is optional; Bash and SQL take
 * none). `toolCallParser` reads the calls.
 */
export const TOOL_SPECS = (env: EnvLanguage): ToolSpec[] => {
  const submit = SUBMIT[env];
  return [
    {
      name: 'execute',
      description: `Run code in the environment. ${CODE_DESCRIPTION[env]}`,
      parameters: {
        type: 'object',
        properties: { code: { type: 'string', description: CODE_DESCRIPTION[env] } },
        required: ['code'],
        additionalProperties: false,
      },
    },
    {
      name: 'submit',
      description: submit.description,
      parameters: {
        type: 'object',
        properties: submit.answer ? { answer: { type: 'string', description: submit.answer } } : {},
        required: submit.required ? ['answer'] : [],
        additionalProperties: false,
      },
    },
  ];
};
