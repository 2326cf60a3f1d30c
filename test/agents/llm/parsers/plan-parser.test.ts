import { describe, expect, it } from 'vitest';
import { planParser } from '../../../../src/agents/llm/parsers/plan-parser.js';

type Case = readonly [name: string, text: string, steps: readonly string[]];

const CASES: readonly Case[] = [
  [
    'one step per line',
    '1. List the tables.\n2. Describe singer.\n3. Count.',
    ['List the tables.', 'Describe singer.', 'Count.'],
  ],
  ['heading before the plan', 'Plan:\n1. a\n2. b', ['a', 'b']],
  ['prose heading with a colon', 'Here is my plan for the task:\n\n1. a\n2. b', ['a', 'b']],
  [
    'newlines collapsed',
    '1. Find the files. 2. Sum their sizes. 3. Print it.',
    ['Find the files.', 'Sum their sizes.', 'Print it.'],
  ],
  ['parenthesis numbers', '1) first\n2) second', ['first', 'second']],
  ['Step N: labels', 'Step 1: look\nStep 2: act', ['look', 'act']],
  ['bold numbers', '**1.** look\n**2.** act', ['look', 'act']],
  ['bold step text', '1. **Inspect** the schema\n2. Query', ['Inspect the schema', 'Query']],
  [
    'multi-line step joined',
    '1. Join the tables\n   on the id column.\n2. Count.',
    ['Join the tables on the id column.', 'Count.'],
  ],
  [
    'decimal inside a step is not a number',
    '1. Keep prices above 2.5 dollars\n2. Sum them',
    ['Keep prices above 2.5 dollars', 'Sum them'],
  ],
  [
    'a number inside a step that breaks the order',
    '1. Take the top 3. results\n2. Print',
    ['Take the top 3. results', 'Print'],
  ],
  ['trailing prose after a blank line dropped', '1. a\n2. b\n\nThis plan should work.', ['a', 'b']],
  ['indented items', '  1. a\n  2. b', ['a', 'b']],
  ['plan must start at 1', '2. b\n3. c', []],
  ['gap ends the plan', '1. a\n2. b\n4. d', ['a', 'b\n4. d'.replace(/\s+/g, ' ')]],
  ['no numbered items', 'I will look at the tables and then count.', []],
  ['bulleted list is not a plan', '- a\n- b', []],
  [
    'a step that ends in the word step',
    '1. Sort what was found in step\n2. Print it',
    ['Sort what was found in step', 'Print it'],
  ],
  ['empty text', '', []],
  ['empty item dropped', '1. \n2. b', ['b']],
  [
    'ten steps',
    Array.from({ length: 10 }, (_, i) => `${i + 1}. s${i + 1}`).join('\n'),
    Array.from({ length: 10 }, (_, i) => `s${i + 1}`),
  ],
];

describe('planParser', () => {
  it.each(CASES)('%s', (_name, text, steps) => {
    expect(planParser()(text)).toEqual(steps);
  });
});
