import { BASH_DEMONSTRATIONS } from './bash-demonstrations.js';
import { CTF_DEMONSTRATIONS } from './ctf-demonstrations.js';
import type { Demonstration } from './demonstration.js';
import { renderReactDemonstrations } from './demonstration.js';
import { envSetting, outputText, rewardText } from './env-setting.js';
import type { EnvLanguage, PromptSet } from './prompt-set.js';
import { PYTHON_DEMONSTRATIONS } from './python-demonstrations.js';
import { SQL_DEMONSTRATIONS } from './sql-demonstrations.js';

/** The worked examples of ReAct per environment (SQL 5, Bash 5, Python 3, CTF 3). */
export const REACT_DEMONSTRATIONS: Readonly<Record<EnvLanguage, readonly Demonstration[]>> = {
  sql: SQL_DEMONSTRATIONS,
  bash: BASH_DEMONSTRATIONS,
  python: PYTHON_DEMONSTRATIONS,
  ctf: CTF_DEMONSTRATIONS,
};

/** How `submit` is written in each environment. */
const SUBMIT: Readonly<Record<EnvLanguage, string>> = {
  bash: 'submit, when the task is done: the state of the machine and your last output are then scored.',
  sql: 'submit, when your last query returned the answer: that result is then scored.',
  python: 'submit[<function name>], when your function is ready: hidden tests then call it.',
  ctf: 'submit[<flag>], when you have found the flag (flags usually look like picoCTF{...}).',
};

/** An observation as a demonstration shows it: the output, or the no-output line. */
function withOutputs(env: EnvLanguage, demonstrations: readonly Demonstration[]): readonly Demonstration[] {
  return demonstrations.map((demo) => ({
    ...demo,
    steps: demo.steps.map((step) =>
      step.observation === undefined ? step : { ...step, observation: outputText(env, step.observation) },
    ),
  }));
}

/**
 * The prompts of ReAct: instructions for the Thought / Action / Observation cycle with the actions
 * `execute[<code>]` and `submit`, then the worked examples of the environment (the end of the
 * cacheable prefix), then `Question: <query>`. `reactParser` reads the answers.
 */
export function reactPromptSet(env: EnvLanguage): PromptSet {
  const setting = envSetting(env);
  const role =
    env === 'ctf'
      ? `You are an expert Capture the Flag player, working in ${setting.system}. Each task hides a flag for you to find.`
      : `You are an expert in ${setting.language}, working with ${setting.system}. You solve a task given in plain English.`;
  const system = [
    role,
    'You work in steps. In each answer, write one Thought line, where you reason about what you know and what to do next, then one Action line. The environment then replies with an Observation: what your action printed. Write only your own Thought and Action; never write an Observation yourself.',
    [
      'An action is one of:',
      `- execute[<code>]: runs ${setting.action} and shows you its output. Write the code itself between the brackets, without a code fence.`,
      `- ${SUBMIT[env]}`,
      env === 'ctf' ? '- skip: gives up on the task.' : '',
    ]
      .filter((line) => line !== '')
      .join('\n'),
    'Your answer looks like this:\nThought: <your reasoning>\nAction: <one action>',
    env === 'ctf'
      ? 'Only a submitted flag is scored: it is right or wrong. Your goal is to submit the right flag.'
      : `When you submit, your work is scored from 0 to 1: ${setting.reward}. Your goal is a score of 1, so check your result before you submit.`,
  ].join('\n\n');
  const demonstrations = `Worked examples on other tasks:\n\n${renderReactDemonstrations(withOutputs(env, REACT_DEMONSTRATIONS[env]))}`;
  return {
    system,
    demonstrations,
    query: (query) => `Question: ${query}`,
    observation: ({ output, reward }) =>
      [`Observation: ${outputText(env, output)}`, rewardText(reward)]
        .filter((part) => part !== '')
        .join('\n'),
    formatReminder: () =>
      `Your answer had no action I could run. Answer with one line "Thought: ..." and one line "Action: ...", where the action is execute[<${setting.language} code>] or ${env === 'bash' || env === 'sql' ? 'submit' : env === 'python' ? 'submit[<function name>]' : 'submit[<flag>]'}.`,
  };
}
