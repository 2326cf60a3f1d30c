import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { test } from '../support/fixtures.js';
import { redisMissing } from '../support/missing-components.js';
import { waitFor } from '../support/wait-for.js';
import { episodesOf, expectExactlyOnce, lineCount, startWorkers, stopWorkers } from './queue-test-run.js';

const LONG = 240_000;

describe('stopping the parts of a distributed run', () => {
  test('Ctrl-C of the gathering run: exit 3, an incomplete summary, and --resume finishes exactly once', {
    timeout: LONG,
  }, async ({ cli, tempDir, startRedis, needs }) => {
    needs(redisMissing());
    const redis = await startRedis();
    const out = join(tempDir('queue-ctrl-c'), 'dist');
    const args = ['run', 'demo/sql', '--samples', '3', '--redis', redis.url, '--out', out, '--json'];
    const workers = startWorkers(cli, redis.url, 1);
    const first = cli.start(args);
    await waitFor(() => lineCount(out) >= 20, LONG, 'twenty episodes');
    first.child.kill('SIGINT');
    const stopped = await first.done;
    expect(stopped.status, stopped.stderr).toBe(3);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.complete).toBe(false);
    expect(summary.n).toBe(lineCount(out));
    const resumed = await cli.start([...args, '--resume']).done;
    expect(resumed.status, resumed.stderr).toBe(0);
    const taskIds = [...new Set(episodesOf(out).map((record) => record.taskId))];
    expect(taskIds).toHaveLength(41);
    expectExactlyOnce(out, taskIds, 3);
    await stopWorkers(workers);
  });

  test('SIGTERM of a worker: it finishes or hands back its episodes and exits 0; another plays the rest', {
    timeout: LONG,
  }, async ({ cli, tempDir, startRedis, needs }) => {
    needs(redisMissing());
    const redis = await startRedis();
    const out = join(tempDir('queue-sigterm'), 'dist');
    const run = cli.start([
      'run',
      'demo/sql',
      '--samples',
      '3',
      '--redis',
      redis.url,
      '--out',
      out,
      '--json',
    ]);
    const [first] = startWorkers(cli, redis.url, 1);
    await waitFor(() => lineCount(out) >= 10, LONG, 'ten episodes');
    first!.child.kill('SIGTERM');
    const ended = await first!.done;
    expect(ended.status, ended.stderr).toBe(0);
    expect(ended.stderr).toMatch(/stopped after \d+ episode\(s\)/);
    expect(lineCount(out)).toBeLessThan(123);
    const second = startWorkers(cli, redis.url, 1);
    const result = await run.done;
    expect(result.status, result.stderr).toBe(0);
    const taskIds = [...new Set(episodesOf(out).map((record) => record.taskId))];
    expectExactlyOnce(out, taskIds, 3);
    expect(episodesOf(out)).toHaveLength(123);
    await stopWorkers(second);
  });
});
