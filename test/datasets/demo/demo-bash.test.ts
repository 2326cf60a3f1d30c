import { describe, expect, it } from 'vitest';
import { DEMO_BASH_TASKS } from '../../../src/datasets/demo/demo-bash-tasks.js';

// The tasks of demo/bash as written (demo-bash.sandbox.test.ts plays their golds in sandboxes).
describe('demo/bash tasks', () => {
  it('has at least 20 tasks with unique ids, and golds free of dates, hosts, network and randomness', () => {
    expect(DEMO_BASH_TASKS.length).toBeGreaterThanOrEqual(20);
    expect(new Set(DEMO_BASH_TASKS.map((task) => task.id)).size).toBe(DEMO_BASH_TASKS.length);
    for (const task of DEMO_BASH_TASKS) {
      expect(task.gold, task.id).not.toMatch(
        /\b(date|hostname|uname|curl|wget|ping|RANDOM|shuf|mktemp|ls -l)\b/,
      );
      expect(task.gold, task.id).toMatch(/\/demo/);
    }
  });
});
