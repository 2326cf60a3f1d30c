import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { test } from '../support/fixtures.js';
import { redisMissing } from '../support/missing-components.js';
import { episodesOf, startWorkers, stopWorkers } from './queue-test-run.js';

const LONG = 240_000;

describe('failures on the queue, and doctor --redis', () => {
  test('an episode that fails for infrastructure reasons --max-attempts times is recorded with its error', {
    timeout: LONG,
  }, async ({ cli, tempDir, startRedis, needs }) => {
    needs(redisMissing());
    const redis = await startRedis();
    const out = join(tempDir('queue-failures'), 'dist');
    // No MariaDB answers on port 1: each worker's try to open the run fails.
    const workers = startWorkers(cli, redis.url, 1);
    const result = await cli.start([
      'run',
      'demo/sql',
      '--tasks',
      '0-1',
      '--engine',
      'mysql',
      '--db-url',
      'mysql://user:pw@127.0.0.1:1/demo',
      '--redis',
      redis.url,
      '--max-attempts',
      '2',
      '--out',
      out,
      '--json',
    ]).done;
    expect(result.status, result.stderr).toBe(0);
    const records = episodesOf(out);
    expect(records).toHaveLength(2);
    for (const record of records) expect(record.error).toMatch(/^failed 2 time\(s\); the last: /);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ n: 0, complete: true }); // failed episodes are counted apart
    await stopWorkers(workers);
  });

  test('doctor --redis: PING, version and noeviction of a real redis-server; a closed port is MISSING', {
    timeout: LONG,
  }, async ({ cli, startRedis, needs }) => {
    needs(redisMissing());
    const redis = await startRedis();
    const ok = cli.run(['doctor', '--redis', redis.url], { timeoutMs: 120_000 });
    expect(ok.stdout).toMatch(
      /Queue \(--redis\)\n {2}ok +connection +redis:\/\/127\.0\.0\.1:\d+\/?: PONG, round trip [\d.]+ ms/,
    );
    expect(ok.stdout).toMatch(/ok +version +Redis \d+\.\d+/);
    expect(ok.stdout).toMatch(/ok +maxmemory-policy +noeviction/);
    await redis.stop();
    const down = cli.run(['doctor', '--redis', redis.url, '--json'], { timeoutMs: 120_000 });
    expect(down.status).toBe(2);
    const report = JSON.parse(down.stdout) as {
      groups: Array<{ title: string; items: Array<{ ok: boolean; detail: string }> }>;
    };
    const queue = report.groups.find((group) => group.title === 'Queue (--redis)');
    expect(queue?.items[0]).toMatchObject({ ok: false, detail: expect.stringMatching(/ECONNREFUSED/) });
  });
});
