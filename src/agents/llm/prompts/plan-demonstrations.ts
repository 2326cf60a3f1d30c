import type { EnvLanguage } from './prompt-set.js';

/** A worked Plan & Solve plan: a task and its numbered steps. */
export interface PlanDemonstration {
  readonly task: string;
  readonly plan: readonly string[];
}

/** Three example plans per environment, written for this project. */
export const PLAN_DEMONSTRATIONS: Readonly<Record<EnvLanguage, readonly PlanDemonstration[]>> = {
  sql: [
    {
      task: 'How many orders did each customer from Canada place?',
      plan: [
        'List the tables of the database.',
        'Look at the columns of the customer and order tables.',
        'Join the orders to their customers, keep the customers from Canada and count the orders per customer.',
      ],
    },
    {
      task: 'What is the name of the oldest singer?',
      plan: [
        'List the tables of the database.',
        'Look at the columns of the singer table to find the name and the age or birth date.',
        'Sort the singers from oldest to youngest and return the first name.',
      ],
    },
    {
      task: 'Which products were never ordered?',
      plan: [
        'List the tables of the database.',
        'Look at the columns of the product table and of the table that records orders.',
        'Select the products whose id does not appear among the ordered product ids.',
      ],
    },
  ],
  bash: [
    {
      task: 'Delete every empty file under /tmp/work.',
      plan: [
        'List the empty files under /tmp/work to see what will go.',
        'Delete the empty files under /tmp/work.',
        'Check that no empty file is left.',
      ],
    },
    {
      task: 'Print the total size of the .png images in /srv/site.',
      plan: ['Find the .png files under /srv/site.', 'Add up their sizes and print the total.'],
    },
    {
      task: 'Print the ten most frequent words of /books/story.txt.',
      plan: [
        'Look at the start of /books/story.txt.',
        'Split the text into one lower-case word per line.',
        'Count each word, sort by count and print the first ten.',
      ],
    },
  ],
  python: [
    {
      task: 'Write a function to return the common elements of two lists, in the order of the first list.',
      plan: [
        'Define the function, keeping the elements of the first list that are in the second.',
        'Call it on two small lists to check the order and the result.',
        'Submit the function.',
      ],
    },
    {
      task: 'Write a function to check whether a number is prime.',
      plan: [
        'Define the function: numbers below 2 are not prime; otherwise try the divisors up to the square root.',
        'Check it on 1, 2, 9 and 13.',
        'Submit the function.',
      ],
    },
    {
      task: 'Write a function to turn a sentence into title case.',
      plan: [
        'Define the function that upper-cases the first letter of each word.',
        'Check it on a sentence with extra spaces.',
        'Submit the function.',
      ],
    },
  ],
  ctf: [
    {
      task: "The flag is hidden in the file 'secret.bin'.",
      plan: [
        'Find out what kind of file secret.bin is.',
        'List the readable strings of the file and look for the flag.',
        'Submit the flag.',
      ],
    },
    {
      task: "The file 'cipher.txt' holds the flag, encoded.",
      plan: [
        'Print the content of cipher.txt.',
        'Recognise the encoding and decode the content.',
        'Submit the decoded flag.',
      ],
    },
    {
      task: "The archive 'box.zip' contains the flag.",
      plan: [
        'List the files in box.zip.',
        'Extract the archive and print the file that holds the flag.',
        'Submit the flag.',
      ],
    },
  ],
};

/** A plan as the model is asked to write it: one numbered step per line. */
export function numberedPlan(plan: readonly string[]): string {
  return plan.map((step, i) => `${i + 1}. ${step}`).join('\n');
}
