import { envSetting, fencedExample, outputText, rewardText } from './env-setting.js';
import { numberedPlan, PLAN_DEMONSTRATIONS } from './plan-demonstrations.js';
import type { EnvLanguage, PromptSet } from './prompt-set.js';

/** What a step's answer may also be, besides one block of code. */
const FINISH: Readonly<Record<EnvLanguage, string>> = {
  bash: 'When a step needs no code, or the task is already done, answer: submit',
  sql: 'When a step needs no code, or your last query already answers the question, answer: submit',
  python: 'When your function is ready and the step says to submit it, answer: submit <function name>',
  ctf: 'When you have the flag, answer: submit <flag> (flags usually look like picoCTF{...})',
};

/**
 * The prompts of Plan & Solve: a numbered plan first (three example plans of the environment form
 * the cacheable prefix), then one message per step asking for that step's code in one fenced block
 * (with the output of the previous step's code). `planParser` reads the plan and `actionParser` the
 * steps.
 */
export function planSolvePromptSet(env: EnvLanguage): PromptSet {
  const setting = envSetting(env);
  const block = fencedExample(
    setting.tag,
    env === 'python' ? 'def <name>(<arguments>):\n    <body>' : '<code>',
  );
  const role =
    env === 'ctf'
      ? `You are an expert Capture the Flag player, working in ${setting.system}. Each task hides a flag, usually shaped like picoCTF{...}, for you to find.`
      : `You are an expert in ${setting.language}, working with ${setting.system}.`;
  const system = [
    role,
    'You solve each task in two phases. First you write a plan: short numbered steps (1., 2., 3., ...), one per line, and no code. Then you are given the steps one at a time, and for each you write the code that carries it out.',
    `For a step, answer with exactly one fenced block tagged ${setting.tag} and no other text:\n${block}\n${FINISH[env]}`,
    `Your code runs in the environment and you see its output before the next step. ${env === 'ctf' ? '' : `Your work is scored from 0 to 1: ${setting.reward}.`}`.trim(),
  ].join('\n\n');
  const demonstrations = `Example plans for other tasks:\n\n${PLAN_DEMONSTRATIONS[env]
    .map((demo, i) => `Example ${i + 1}\nTask: ${demo.task}\nPlan:\n${numberedPlan(demo.plan)}`)
    .join('\n\n')}`;
  const planRequest = (query: string): string =>
    `Task: ${query}\n\nWrite your plan for this task now: numbered steps, one per line, no code.`;
  return {
    system,
    demonstrations,
    query: planRequest,
    planRequest,
    step: ({ step, output }) =>
      [
        output === undefined ? '' : `Output of your last code:\n${outputText(env, output)}`,
        `Next step: ${step}`,
        `Write the code for this step in one \`\`\`${setting.tag} block.`,
      ]
        .filter((part) => part !== '')
        .join('\n\n'),
    observation: ({ output, reward, query }) =>
      [
        `Output:\n${outputText(env, output)}`,
        rewardText(reward),
        `The task is still: ${query}`,
        `The plan is done but the task is not solved yet. Try something different, in one \`\`\`${setting.tag} block.`,
      ]
        .filter((part) => part !== '')
        .join('\n\n'),
    formatReminder: () =>
      `Your answer held no runnable ${setting.language} code. Reply with exactly one fenced block tagged ${setting.tag} and no other text:\n${block}`,
  };
}
