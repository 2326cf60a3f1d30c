import { describe, expect, it } from 'vitest';
import { formatMarkdownTable } from '../../src/harness/markdown-table.js';

describe('formatMarkdownTable', () => {
  it('writes a GFM table, the first column left-aligned, pipes in cells escaped', () => {
    expect(
      formatMarkdownTable(
        ['group', 'n'],
        [
          ['all', '3'],
          ['a|b', '1'],
        ],
      ),
    ).toBe('| group | n |\n|:--|--:|\n| all | 3 |\n| a\\|b | 1 |');
  });
});
