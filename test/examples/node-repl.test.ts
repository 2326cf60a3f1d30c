import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { EpisodeRecord } from '../../src/harness/episode-record.js';
import { expectOneLineError } from '../support/cli-runner.js';
import { it } from '../support/fixtures.js';
import { jsonLines } from '../support/json-lines.js';
import { PROJECT_ROOT } from '../support/project.js';

// The example environment of examples/node-repl, defined outside src/ against the package's public
// API, run through the compiled CLI as a user would.

describe('examples/node-repl through `intercode run --env ./module.js`', () => {
  it('the gold agent solves every task of the example (its own test scores each one 1)', ({
    cli,
    tempDir,
  }) => {
    const out = join(tempDir('node-repl-run'), 'run');
    const result = cli.run(
      [
        'run',
        'examples/node-repl/tasks.json',
        '--env',
        './examples/node-repl/node-repl-env.js',
        '--agent',
        'gold',
        '--out',
        out,
      ],
      { timeoutMs: 120_000 },
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const tasks = JSON.parse(
      readFileSync(join(PROJECT_ROOT, 'examples/node-repl/tasks.json'), 'utf8'),
    ) as unknown[];
    const episodes = jsonLines<EpisodeRecord>(join(out, 'episodes.jsonl'));
    expect(episodes).toHaveLength(tasks.length);
    for (const episode of episodes)
      expect({ id: episode.taskId, reward: episode.maxReward }).toEqual({ id: episode.taskId, reward: 1 });
    // The interpreter persists between actions: the two-step task's second action sees the first.
    const total = episodes.find((episode) => episode.taskId === 'running-total')!;
    expect(total.turns.map((turn) => turn.observation)).toEqual(['', '385', '385']);
  });

  it('a module path that does not exist is a one-line error', ({ cli }) => {
    const result = cli.run(['run', 'examples/node-repl/tasks.json', '--env', './no/such-env.js']);
    expectOneLineError(result, /--env: environment module \.\/no\/such-env\.js does not exist/);
  });

  it('a module without a defineEnvironment default export, or one that throws, is a one-line error', ({
    cli,
    tempDir,
  }) => {
    const folder = tempDir('node-repl-bad');
    writeFileSync(join(folder, 'plain.mjs'), "export default { name: 'plain' };\n");
    writeFileSync(join(folder, 'broken.mjs'), "throw new Error('boom\\nsecond line');\n");
    const plain = cli.run(['run', 'examples/node-repl/tasks.json', '--env', join(folder, 'plain.mjs')]);
    expectOneLineError(plain, /has no environment as its default export/);
    const broken = cli.run(['run', 'examples/node-repl/tasks.json', '--env', join(folder, 'broken.mjs')]);
    expectOneLineError(broken, /cannot load .*broken\.mjs: boom$/m);
  });
});
