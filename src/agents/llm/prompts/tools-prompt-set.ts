import { envSetting, outputText, rewardText } from './env-setting.js';
import type { EnvLanguage, PromptSet } from './prompt-set.js';

/** How the `submit` tool is used in each environment. */
const SUBMIT: Readonly<Record<EnvLanguage, string>> = {
  bash: 'Call submit (no arguments) when the task is done: the state of the machine and your last output are then scored.',
  sql: 'Call submit (no arguments) when your last query returned the answer: that result is then scored.',
  python:
    'Call submit with answer set to the name of your function when it is ready: hidden tests then call it.',
  ctf: 'Call submit with answer set to the flag when you have found it (flags usually look like picoCTF{...}).',
};

/**
 * The prompts of the `tools` strategy (native tool calling): the model acts only through the
 * `execute` tool (`{ code }`) and the `submit` tool (`{ answer? }`) of `TOOL_SPECS`; observations go
 * back as tool results.
 */
export function toolsPromptSet(env: EnvLanguage): PromptSet {
  const setting = envSetting(env);
  const role =
    env === 'ctf'
      ? `You are an expert Capture the Flag player, working in ${setting.system}. Each task hides a flag for you to find.`
      : `You are an expert in ${setting.language}, working with ${setting.system}. You solve a task given in plain English.`;
  const system = [
    role,
    `You act only through tools. Use the execute tool to run ${setting.action}: put the code itself in its code argument and you get back what it printed. Call one tool per answer; you may think briefly in text before the call.`,
    SUBMIT[env],
    env === 'ctf' ? '' : `Your work is scored from 0 to 1: ${setting.reward}; 1 means solved.`,
  ]
    .filter((part) => part !== '')
    .join('\n\n');
  return {
    system,
    query: (query) => `Task: ${query}`,
    observation: ({ output, reward }) =>
      [outputText(env, output), rewardText(reward)].filter((part) => part !== '').join('\n\n'),
    formatReminder: () =>
      `Your answer called no tool, so nothing ran. Call the execute tool with ${setting.action} in its code argument, or call submit when you are done.`,
  };
}
