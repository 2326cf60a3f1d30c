import { describe, expect } from 'vitest';
import { expectOneLineError } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// `intercode play`: an episode typed on stdin, through the compiled CLI in real bwrap sandboxes.
const noBwrap = await bwrapMissing();

describe('intercode play', () => {
  it('plays the gold and submit typed on stdin: reward 1 and its parts', ({ cli, needs }) => {
    needs(noBwrap);
    const result = cli.run(['play', 'demo/bash', '--task', '0'], {
      input: "find /demo/src -type f -name '*.py' | wc -l\nsubmit\n",
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('How many Python (.py) files');
    expect(result.stdout).toContain('5\n');
    expect(result.stdout).toMatch(
      /\nreward 1\n {2}file_diff: 0\.33\n {2}file_changes: 0\.33\n {2}answer_similarity: 0\.33\n/,
    );
    expect(result.stdout).toContain("gold: find /demo/src -type f -name '*.py' | wc -l\n");
  });

  it('scores the episode at end of input without a submit', ({ cli, needs }) => {
    needs(noBwrap);
    const result = cli.run(['play', 'demo/bash', '--task', '0'], { input: 'echo no idea\n' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/\nreward 0\.67\d* \(scored without a submit\)\n/);
    expect(result.stdout).toMatch(/ {2}answer_similarity: 0\n/);
  });

  it('fails in one line for a task index out of range', ({ cli }) => {
    expectOneLineError(
      cli.run(['play', 'demo/bash', '--task', '99']),
      /--task: task index 99 is out of range 0-29 for demo\/bash/,
    );
  });
});
