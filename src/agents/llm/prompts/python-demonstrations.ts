import type { Demonstration } from './demonstration.js';

/** Three Python episodes, written for this project: define, try, submit the function's name. */
export const PYTHON_DEMONSTRATIONS: readonly Demonstration[] = [
  {
    task: 'Write a function to find the second largest distinct number in a list.',
    steps: [
      {
        thought: 'I sort the distinct values and take the one before the last.',
        action: {
          code: 'def second_largest(numbers):\n    values = sorted(set(numbers))\n    return values[-2]',
        },
        observation: '',
      },
      {
        thought: 'I try it on a list with a repeated maximum.',
        action: { code: 'print(second_largest([4, 9, 1, 9]))' },
        observation: '4',
      },
      {
        thought: 'The result is right; the function is second_largest.',
        action: { submit: 'second_largest' },
      },
    ],
  },
  {
    task: 'Write a function that checks whether a string reads the same backwards, ignoring case.',
    steps: [
      {
        thought: 'Lower-case the text and compare it with its reverse.',
        action: {
          code: 'def is_palindrome(text):\n    lowered = text.lower()\n    return lowered == lowered[::-1]',
        },
        observation: '',
      },
      {
        thought: 'A quick check with mixed case.',
        action: { code: "print(is_palindrome('Level'), is_palindrome('levels'))" },
        observation: 'True False',
      },
      { thought: 'Both answers are right.', action: { submit: 'is_palindrome' } },
    ],
  },
  {
    task: 'Write a function to count the vowels of a string.',
    steps: [
      {
        thought: 'Count the characters that are vowels.',
        action: { code: "def count_vowels(text):\n    return sum(1 for ch in text if ch in 'aeiou')" },
        observation: '',
      },
      {
        thought: 'I test a word that starts with a capital vowel.',
        action: { code: "print(count_vowels('Apple'))" },
        observation: '1',
      },
      {
        thought: "It missed the capital A: 'Apple' has two vowels. I compare in lower case.",
        action: {
          code: "def count_vowels(text):\n    return sum(1 for ch in text.lower() if ch in 'aeiou')",
        },
        observation: '',
      },
      {
        thought: 'The same test again.',
        action: { code: "print(count_vowels('Apple'))" },
        observation: '2',
      },
      { thought: 'Now it counts both.', action: { submit: 'count_vowels' } },
    ],
  },
];
