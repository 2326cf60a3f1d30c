/**
 * `demo/python`: the gold agent solves every task through the compiled CLI, in real bwrap sandboxes,
 * each gold passing all of its own tests (`npm test` builds dist/ first).
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { DEMO_PYTHON_TASKS } from '../../../src/datasets/demo/demo-python-tasks.js';
import { expectEverySolved } from '../../support/expect-every-solved.js';
import { it } from '../../support/fixtures.js';
import { jsonLines } from '../../support/json-lines.js';
import { bwrapMissing } from '../../support/missing-components.js';

const noBwrap = await bwrapMissing();

describe('demo/python through the CLI', () => {
  it('is solved by the gold agent through the CLI: every task 1.0, no corrupt gold', async ({
    cli,
    needs,
    tempDir,
  }) => {
    needs(noBwrap);
    const out = join(tempDir('demo-python'), 'run');
    const result = cli.run(['run', 'demo/python', '--out', out, '--json'], { timeoutMs: 120_000 });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ dataset: 'demo/python', env: 'python', agent: 'gold' });
    const episodes = jsonLines<{ taskId: string; maxReward: number; goldCorrupt?: boolean }>(
      join(out, 'episodes.jsonl'),
    );
    expect(episodes.map((episode) => episode.taskId).sort()).toEqual(
      DEMO_PYTHON_TASKS.map((task) => task.id).sort(),
    );
    expectEverySolved(episodes);
  }, 180_000);
});
