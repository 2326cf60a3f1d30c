import type { EnvLanguage } from './prompt-set.js';

/** How the prompts name an environment: its language, the system behind it, what one action is. */
export interface EnvSetting {
  /** The language's name in prose (`Bash`, `SQL`, `Python`). */
  readonly language: string;
  /** The fence tag the parsers expect. */
  readonly tag: string;
  /** The system the model talks to. */
  readonly system: string;
  /** One action, with its article (`a Bash command`). */
  readonly action: string;
  /** What the reward measures in this environment. */
  readonly reward: string;
  /** The message for an action that printed nothing. */
  readonly noOutput: string;
}

const SETTINGS: Readonly<Record<EnvLanguage, EnvSetting>> = {
  bash: {
    language: 'Bash',
    tag: 'bash',
    system: 'a Bash shell on a Linux computer',
    action: 'a Bash command',
    reward:
      'how close the state of the file system and the output of your command are to those of a correct solution',
    noOutput: 'The command ran and printed nothing.',
  },
  sql: {
    language: 'SQL',
    tag: 'sql',
    system: 'a MySQL database',
    action: 'a SQL query',
    reward: 'the share of the expected rows that your last query returned',
    noOutput: 'The query ran and returned nothing.',
  },
  python: {
    language: 'Python',
    tag: 'python',
    system: 'a Python 3 interpreter',
    action: 'a Python function definition',
    reward: 'the share of hidden test cases your function passes',
    noOutput: 'The code ran and printed nothing.',
  },
  ctf: {
    language: 'Bash',
    tag: 'bash',
    system: 'a Bash shell on the Linux machine of a Capture the Flag challenge',
    action: 'a Bash command',
    reward: 'whether the flag you submitted is the right one',
    noOutput: 'The command ran and printed nothing.',
  },
};

/** The setting of an environment. */
export function envSetting(env: EnvLanguage): EnvSetting {
  return SETTINGS[env];
}

/** The fenced form of an answer, for the prompts: a fence tagged `tag` around `placeholder`. */
export function fencedExample(tag: string, placeholder: string): string {
  return `\`\`\`${tag}\n${placeholder}\n\`\`\``;
}

/** The output part of an observation message: the output, or the setting's no-output line. */
export function outputText(env: EnvLanguage, output: string): string {
  return output.trim() === '' ? SETTINGS[env].noOutput : output;
}

/** The reward part of an observation message, or nothing when there is no reward to show. */
export function rewardText(reward: number | undefined): string {
  if (reward === undefined) return '';
  return `Reward: ${Number.isInteger(reward) ? reward.toFixed(0) : String(Math.round(reward * 1000) / 1000)}`;
}
