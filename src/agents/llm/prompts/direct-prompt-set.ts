import { envSetting, fencedExample, outputText, rewardText } from './env-setting.js';
import type { EnvLanguage, PromptSet } from './prompt-set.js';

/** What the answer format part of a system prompt says, per language. */
const FORMAT: Readonly<Record<Exclude<EnvLanguage, 'ctf'>, { placeholder: string; rules: string }>> = {
  bash: {
    placeholder: '<one command>',
    rules:
      'Put exactly one command (pipes and && chains are fine) in the block. Do not show a prompt such as "$ " and do not write its output.',
  },
  sql: {
    placeholder: '<one query>',
    rules: 'Put exactly one SQL statement in the block; anything after its first ";" is ignored.',
  },
  python: {
    placeholder: 'def <name>(<arguments>):\n    <body>',
    rules:
      'Put the complete definition of the function the task asks for in the block (with any imports it needs). The function is called by hidden tests, so keep the name and the arguments the task implies, return the result instead of printing it, and do not read input.',
  },
};

/**
 * The prompts of `single` and `try-again` for Bash, SQL and Python: one fenced block per answer.
 * SQL's try-again is framed as a game scored by matching rows, with the advice to look at the
 * schema first; Python asks for a function that hidden tests will call.
 */
export function directPromptSet(
  env: Exclude<EnvLanguage, 'ctf'>,
  strategy: 'single' | 'try-again',
): PromptSet {
  const setting = envSetting(env);
  const format = FORMAT[env];
  const answerFormat = [
    `Answer with a single fenced code block tagged ${setting.tag} and nothing else, no explanation before or after it:`,
    fencedExample(setting.tag, format.placeholder),
    format.rules,
  ].join('\n');
  const game = env === 'sql' && strategy === 'try-again';
  const goal = game
    ? 'The game ends when the reward reaches 1. Until then, read the rows and the reward you got, change your query and play again.'
    : strategy === 'single'
      ? `You get one answer. It is run once and scored with a reward from 0 to 1: ${setting.reward}. A reward of 1 means the task is solved.`
      : `After each answer you see what it printed and a reward from 0 to 1: ${setting.reward}. A reward of 1 means the task is solved and ends it. Until then, read the output, change your approach and answer again.`;
  const intro = game
    ? 'We are playing a game of several rounds against a MySQL database. You are an expert in SQL. Each round you send one query; the database runs it and shows you its rows, and you score a reward from 0 to 1: the share of the expected rows your query returned. You win when the reward reaches 1. A sound way to play: first list the tables and look at the columns of the ones that matter (SHOW TABLES, DESCRIBE <table>), then build the query that answers the question.'
    : `You are an expert in ${setting.language}, working with ${setting.system}. You are given a task in plain English and you solve it by writing ${setting.action}.`;
  const system = [intro, answerFormat, goal].join('\n\n');
  return {
    system,
    query: (query) =>
      `Task: ${query}\n\nWrite the ${setting.language} ${env === 'python' ? 'function' : env === 'sql' ? 'query' : 'command'} for this task in one \`\`\`${setting.tag} block. Do not write its output or a reward yourself: the environment gives you those.`,
    observation: ({ output, reward, query }) =>
      [
        `Output:\n${outputText(env, output)}${env === 'python' && output.trim() === '' ? ' Answer with the definition of the function the task asks for: hidden tests call it.' : ''}`,
        rewardText(reward),
        `The task is still: ${query}`,
        `That did not solve it yet. Try something different, as ${setting.action} in one \`\`\`${setting.tag} block.`,
      ]
        .filter((part) => part !== '')
        .join('\n\n'),
    formatReminder: () =>
      `Your answer held no runnable ${setting.language} code. Reply with exactly one fenced block tagged ${setting.tag}, holding ${setting.action}, and no other text:\n${fencedExample(setting.tag, format.placeholder)}`,
  };
}
