/** The kind of a `demo/python` task (its group): what the function mainly works on. */
export type DemoPythonKind = 'numbers' | 'strings' | 'lists' | 'dicts' | 'algorithms';

/**
 * One task of `demo/python`, in MBPP's shape: the request, a gold function, `assert` tests that
 * call it by name, and optional setup code run before the tests.
 */
export interface DemoPythonTask {
  readonly id: string;
  readonly query: string;
  readonly gold: string;
  readonly tests: readonly string[];
  readonly test_setup_code: string;
  readonly group: DemoPythonKind;
}

/** Tasks written for intercode; every gold passes its own tests in a fresh interpreter. */
export const DEMO_PYTHON_TASKS: readonly DemoPythonTask[] = [
  {
    id: 'digit-product',
    group: 'numbers',
    query: 'Write a function that returns the product of the decimal digits of a non-negative integer.',
    gold: 'def digit_product(n):\n    product = 1\n    for ch in str(n):\n        product *= int(ch)\n    return product',
    tests: [
      'assert digit_product(234) == 24',
      'assert digit_product(7) == 7',
      'assert digit_product(105) == 0',
    ],
    test_setup_code: '',
  },
  {
    id: 'collatz-steps',
    group: 'numbers',
    query:
      'Write a function that counts the steps the Collatz rule (halve even numbers, map odd n to 3n+1) needs to bring a positive integer down to 1.',
    gold: 'def collatz_steps(n):\n    steps = 0\n    while n != 1:\n        n = n // 2 if n % 2 == 0 else 3 * n + 1\n        steps += 1\n    return steps',
    tests: [
      'assert collatz_steps(1) == 0',
      'assert collatz_steps(6) == 8',
      'assert collatz_steps(27) == 111',
    ],
    test_setup_code: '',
  },
  {
    id: 'is-harshad',
    group: 'numbers',
    query: 'Write a function to check whether a positive integer is divisible by the sum of its digits.',
    gold: 'def is_harshad(n):\n    return n % sum(int(ch) for ch in str(n)) == 0',
    tests: [
      'assert is_harshad(18) == True',
      'assert is_harshad(19) == False',
      'assert is_harshad(1729) == True',
    ],
    test_setup_code: '',
  },
  {
    id: 'nth-triangular',
    group: 'numbers',
    query: 'Write a function that returns the n-th triangular number (1, 3, 6, 10, ...).',
    gold: 'def nth_triangular(n):\n    return n * (n + 1) // 2',
    tests: [
      'assert nth_triangular(1) == 1',
      'assert nth_triangular(4) == 10',
      'assert nth_triangular(100) == 5050',
    ],
    test_setup_code: '',
  },
  {
    id: 'gcd-of-list',
    group: 'numbers',
    query: 'Write a function to find the greatest common divisor of all numbers in a non-empty list.',
    gold: 'import math\ndef gcd_of_list(values):\n    result = 0\n    for value in values:\n        result = math.gcd(result, value)\n    return result',
    tests: [
      'assert gcd_of_list([12, 18, 24]) == 6',
      'assert gcd_of_list([7]) == 7',
      'assert gcd_of_list([9, 28]) == 1',
    ],
    test_setup_code: '',
  },
  {
    id: 'vowel-count',
    group: 'strings',
    query: 'Write a function to count the vowels (a, e, i, o, u, either case) in a string.',
    gold: "def vowel_count(text):\n    return sum(1 for ch in text.lower() if ch in 'aeiou')",
    tests: [
      "assert vowel_count('Harbor') == 2",
      "assert vowel_count('rhythm') == 0",
      "assert vowel_count('AEIOU and more') == 8",
    ],
    test_setup_code: '',
  },
  {
    id: 'title-words',
    group: 'strings',
    query:
      'Write a function that capitalises the first letter of every space-separated word of a string and lowercases the rest.',
    gold: "def title_words(text):\n    return ' '.join(word[:1].upper() + word[1:].lower() for word in text.split(' '))",
    tests: [
      "assert title_words('hello world') == 'Hello World'",
      "assert title_words('sHIP cREW') == 'Ship Crew'",
      "assert title_words('a') == 'A'",
    ],
    test_setup_code: '',
  },
  {
    id: 'run-length',
    group: 'strings',
    query:
      'Write a function that run-length encodes a string: each run of a repeated character becomes the count followed by the character.',
    gold: "from itertools import groupby\ndef run_length(text):\n    return ''.join(str(len(list(group))) + ch for ch, group in groupby(text))",
    tests: [
      "assert run_length('aaabcc') == '3a1b2c'",
      "assert run_length('') == ''",
      "assert run_length('zzzzzzzzzzzz') == '12z'",
    ],
    test_setup_code: '',
  },
  {
    id: 'is-anagram',
    group: 'strings',
    query: 'Write a function to check whether two words are anagrams of each other, ignoring case.',
    gold: 'def is_anagram(first, second):\n    return sorted(first.lower()) == sorted(second.lower())',
    tests: [
      "assert is_anagram('Listen', 'Silent') == True",
      "assert is_anagram('abc', 'abd') == False",
      "assert is_anagram('Dusty', 'study') == True",
    ],
    test_setup_code: '',
  },
  {
    id: 'longest-word',
    group: 'strings',
    query:
      'Write a function that returns the longest word of a sentence (the first one when several are equally long).',
    gold: 'def longest_word(sentence):\n    best = ""\n    for word in sentence.split():\n        if len(word) > len(best):\n            best = word\n    return best',
    tests: [
      "assert longest_word('the quick brown fox') == 'quick'",
      "assert longest_word('a bb cc') == 'bb'",
      "assert longest_word('lighthouse') == 'lighthouse'",
    ],
    test_setup_code: '',
  },
  {
    id: 'second-largest',
    group: 'lists',
    query: 'Write a function to find the second largest distinct value in a list of numbers.',
    gold: 'def second_largest(values):\n    return sorted(set(values))[-2]',
    tests: [
      'assert second_largest([4, 1, 7, 3]) == 4',
      'assert second_largest([5, 5, 2]) == 2',
      'assert second_largest([-1, -8, -3]) == -3',
    ],
    test_setup_code: '',
  },
  {
    id: 'chunk-list',
    group: 'lists',
    query:
      'Write a function that splits a list into consecutive chunks of a given size (the last chunk may be shorter).',
    gold: 'def chunk_list(items, size):\n    return [items[i:i + size] for i in range(0, len(items), size)]',
    tests: [
      'assert chunk_list([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]',
      'assert chunk_list([], 3) == []',
      "assert chunk_list(['a', 'b', 'c'], 3) == [['a', 'b', 'c']]",
    ],
    test_setup_code: '',
  },
  {
    id: 'rotate-left',
    group: 'lists',
    query: 'Write a function to rotate a list to the left by k positions.',
    gold: 'def rotate_left(items, k):\n    if not items:\n        return []\n    k %= len(items)\n    return items[k:] + items[:k]',
    tests: [
      'assert rotate_left([1, 2, 3, 4], 1) == [2, 3, 4, 1]',
      'assert rotate_left([1, 2, 3], 5) == [3, 1, 2]',
      'assert rotate_left([], 2) == []',
    ],
    test_setup_code: '',
  },
  {
    id: 'running-total',
    group: 'lists',
    query: 'Write a function that returns the running totals of a list of numbers.',
    gold: 'def running_total(values):\n    total = 0\n    result = []\n    for value in values:\n        total += value\n        result.append(total)\n    return result',
    tests: [
      'assert running_total([1, 2, 3]) == [1, 3, 6]',
      'assert running_total([]) == []',
      'assert running_total([5, -5, 5]) == [5, 0, 5]',
    ],
    test_setup_code: '',
  },
  {
    id: 'pair-sums',
    group: 'lists',
    query: 'Write a function that counts the pairs of positions i < j whose values add up to a target.',
    gold: 'def pair_sums(values, target):\n    count = 0\n    for i in range(len(values)):\n        for j in range(i + 1, len(values)):\n            if values[i] + values[j] == target:\n                count += 1\n    return count',
    tests: [
      'assert pair_sums([1, 2, 3, 4], 5) == 2',
      'assert pair_sums([2, 2, 2], 4) == 3',
      'assert pair_sums([1], 2) == 0',
    ],
    test_setup_code: '',
  },
  {
    id: 'invert-mapping',
    group: 'dicts',
    query: 'Write a function that inverts a dictionary whose values are unique (values become keys).',
    gold: 'def invert_mapping(mapping):\n    return {value: key for key, value in mapping.items()}',
    tests: [
      "assert invert_mapping({'a': 1, 'b': 2}) == {1: 'a', 2: 'b'}",
      'assert invert_mapping({}) == {}',
      "assert invert_mapping({'x': 'y'}) == {'y': 'x'}",
    ],
    test_setup_code: '',
  },
  {
    id: 'char-frequency',
    group: 'dicts',
    query:
      'Write a function that returns the most frequent character of a string (the earliest one on a tie).',
    gold: 'from collections import Counter\ndef char_frequency(text):\n    counts = Counter(text)\n    return max(text, key=lambda ch: (counts[ch], -text.index(ch)))',
    tests: [
      "assert char_frequency('abracadabra') == 'a'",
      "assert char_frequency('xyz') == 'x'",
      "assert char_frequency('bbaa') == 'b'",
    ],
    test_setup_code: '',
  },
  {
    id: 'group-by-length',
    group: 'dicts',
    query:
      'Write a function that groups words by their length into a dictionary of lists, keeping the input order.',
    gold: 'def group_by_length(words):\n    groups = {}\n    for word in words:\n        groups.setdefault(len(word), []).append(word)\n    return groups',
    tests: [
      "assert group_by_length(['ab', 'c', 'de']) == {2: ['ab', 'de'], 1: ['c']}",
      'assert group_by_length([]) == {}',
      "assert group_by_length(['sea']) == {3: ['sea']}",
    ],
    test_setup_code: '',
  },
  {
    id: 'cargo-weight',
    group: 'dicts',
    query:
      'Write a function that sums the weight of the cargo items whose category is the given one; each item is a Cargo object with `category` and `weight` attributes.',
    gold: 'def cargo_weight(items, category):\n    return sum(item.weight for item in items if item.category == category)',
    tests: [
      "assert cargo_weight(MANIFEST, 'grain') == 30",
      "assert cargo_weight(MANIFEST, 'steel') == 7",
      "assert cargo_weight(MANIFEST, 'oil') == 0",
    ],
    test_setup_code:
      "class Cargo:\n    def __init__(self, category, weight):\n        self.category = category\n        self.weight = weight\nMANIFEST = [Cargo('grain', 10), Cargo('steel', 7), Cargo('grain', 20)]",
  },
  {
    id: 'binary-search',
    group: 'algorithms',
    query:
      'Write a function that returns the index of a value in a sorted list with binary search, or -1 when it is absent.',
    gold: 'def binary_search(items, value):\n    low, high = 0, len(items) - 1\n    while low <= high:\n        mid = (low + high) // 2\n        if items[mid] == value:\n            return mid\n        if items[mid] < value:\n            low = mid + 1\n        else:\n            high = mid - 1\n    return -1',
    tests: [
      'assert binary_search([1, 3, 5, 7, 9], 7) == 3',
      'assert binary_search([1, 3, 5], 4) == -1',
      'assert binary_search([], 1) == -1',
    ],
    test_setup_code: '',
  },
  {
    id: 'balanced-brackets',
    group: 'algorithms',
    query: 'Write a function to check whether the brackets (), [] and {} in a string are balanced.',
    gold: "def balanced_brackets(text):\n    pairs = {')': '(', ']': '[', '}': '{'}\n    stack = []\n    for ch in text:\n        if ch in '([{':\n            stack.append(ch)\n        elif ch in pairs:\n            if not stack or stack.pop() != pairs[ch]:\n                return False\n    return not stack",
    tests: [
      "assert balanced_brackets('([]{})') == True",
      "assert balanced_brackets('([)]') == False",
      "assert balanced_brackets('((') == False",
    ],
    test_setup_code: '',
  },
  {
    id: 'merge-sorted',
    group: 'algorithms',
    query: 'Write a function that merges two sorted lists into one sorted list without calling sort.',
    gold: 'def merge_sorted(left, right):\n    merged, i, j = [], 0, 0\n    while i < len(left) and j < len(right):\n        if left[i] <= right[j]:\n            merged.append(left[i])\n            i += 1\n        else:\n            merged.append(right[j])\n            j += 1\n    return merged + left[i:] + right[j:]',
    tests: [
      'assert merge_sorted([1, 4, 6], [2, 3, 7]) == [1, 2, 3, 4, 6, 7]',
      'assert merge_sorted([], [1]) == [1]',
      'assert merge_sorted([2, 2], [2]) == [2, 2, 2]',
    ],
    test_setup_code: '',
  },
  {
    id: 'fibonacci-memo',
    group: 'algorithms',
    query:
      'Write a function that returns the n-th Fibonacci number (fib(0) = 0, fib(1) = 1) fast enough for n = 90.',
    gold: 'def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a',
    tests: [
      'assert fibonacci(0) == 0',
      'assert fibonacci(10) == 55',
      'assert fibonacci(90) == 2880067194370816120',
    ],
    test_setup_code: '',
  },
  {
    id: 'count-islands',
    group: 'algorithms',
    query:
      "Write a function that counts the islands (groups of '#' cells connected up, down, left or right) in a grid given as a list of strings.",
    gold: "def count_islands(grid):\n    seen = set()\n    count = 0\n    for r in range(len(grid)):\n        for c in range(len(grid[r])):\n            if grid[r][c] != '#' or (r, c) in seen:\n                continue\n            count += 1\n            stack = [(r, c)]\n            seen.add((r, c))\n            while stack:\n                y, x = stack.pop()\n                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):\n                    if 0 <= ny < len(grid) and 0 <= nx < len(grid[ny]) and grid[ny][nx] == '#' and (ny, nx) not in seen:\n                        seen.add((ny, nx))\n                        stack.append((ny, nx))\n    return count",
    tests: [
      "assert count_islands(['#..', '.#.', '..#']) == 3",
      "assert count_islands(['##', '##']) == 1",
      "assert count_islands(['...']) == 0",
    ],
    test_setup_code: '',
  },
];
