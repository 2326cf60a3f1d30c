import { describe, expect, it } from 'vitest';
import { selectTasks } from '../../src/cli/task-selection.js';
import type { Task } from '../../src/core/task.js';

const tasks: Task[] = Array.from({ length: 10 }, (_, index) => ({
  id: `t${index}`,
  index,
  query: `q${index}`,
  meta: {},
}));
const indices = (selection: string | undefined) =>
  selectTasks(tasks, selection, 'test/ten').map((t) => t.index);

describe('selectTasks', () => {
  it('selects every task without a selection', () => {
    expect(indices(undefined)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(indices('  ')).toHaveLength(10);
  });

  it('reads indices and ranges, open-ended ranges, in order without duplicates', () => {
    expect(indices('0-4,7')).toEqual([0, 1, 2, 3, 4, 7]);
    expect(indices('7, 2 - 3 ,2')).toEqual([2, 3, 7]);
    expect(indices('8-')).toEqual([8, 9]);
    expect(indices('9')).toEqual([9]);
    expect(indices('4-4')).toEqual([4]);
  });

  it('rejects what is not an index, a backwards range, or an index out of range, naming it', () => {
    expect(() => indices('10')).toThrow('--tasks: task index 10 is out of range 0-9 for test/ten');
    expect(() => indices('3-12')).toThrow('task index 12 is out of range');
    expect(() => indices('5-2')).toThrow('--tasks: range "5-2" runs backwards');
    for (const bad of ['a', '-1', '1-2-3', '1,,2', '1.5']) {
      expect(() => indices(bad)).toThrow(/--tasks: ".*" is not an index or a range like 0-9/);
    }
  });
});
