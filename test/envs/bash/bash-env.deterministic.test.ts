import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import type { Dataset, Task } from '../../../src/core/task.js';
import { BashEnv } from '../../../src/envs/bash/bash-env.js';
import { DETERMINISTIC_CLOCK_MS, LAYER_AGE_MS } from '../../../src/sandbox/deterministic-clock.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing, faketimeMissing } from '../../support/missing-components.js';

// Deterministic mode of the Bash env in real bwrap sandboxes: the clock, time zone, locale and hash
// seed pinned in the agent's and the evaluator's sandbox, and the task file system's times pinned.
const provider = new BwrapProvider();
const noBwrap = await bwrapMissing();
const noFaketime = faketimeMissing();
const envs: BashEnv[] = [];
const clockS = DETERMINISTIC_CLOCK_MS / 1000;
const madeAtS = (DETERMINISTIC_CLOCK_MS - LAYER_AGE_MS) / 1000;

const SETUP = `
mkdir -p /proj/sub
echo a > /proj/a.txt
echo b > /proj/sub/b.txt
touch -m -t 202305312359.59 /proj/recent.txt
date +%s > /proj/made-at.txt
tar -cf /proj/a.tar -C /proj a.txt
`;
const script = join(mkdtempSync(join(tmpdir(), 'intercode-det-')), 'setup.sh');
writeFileSync(script, SETUP);

function task(index: number, gold: string): Task {
  return { id: `t${index}`, index, query: `task ${index}`, gold, meta: {} };
}

const dataset: Dataset = {
  id: 'test/deterministic',
  env: 'bash',
  tasks: [
    task(0, 'date +%s; date; echo "$TZ $LC_ALL"; umask; hostname'),
    task(1, 'stat -c "%n %Y %X" /proj/a.txt /proj/sub /proj/recent.txt; cat /proj/made-at.txt'),
    task(
      2,
      'find /proj -type f -mtime -1 | sort; find /proj -type f -mmin +5 | sort; find /proj -mmin -60 -name a.txt',
    ),
    task(3, "/usr/bin/python3 -c \"print(hash('intercode'), list({'a', 'b', 'c', 'd'}))\""),
    task(4, 'tar -tvf /proj/a.tar --full-time; tar -xf /proj/a.tar -C /tmp && echo extracted'),
    task(5, 'dig +time=1 +tries=1 -x 127.0.0.1 >/dev/null 2>&1; echo "dig exit $?"; which dig; date +%s'),
  ],
  assets: { setupScript: script },
};

function env(deterministic: boolean): BashEnv {
  const made = new BashEnv({
    dataset,
    provider,
    ...(deterministic ? { deterministic: { clockMs: DETERMINISTIC_CLOCK_MS } } : {}),
  });
  envs.push(made);
  return made;
}

/** The gold's observation in a fresh episode of `task`, and its score. */
async function play(made: BashEnv, index: number): Promise<{ text: string; value: number }> {
  await made.reset({ index });
  const step = await made.step(dataset.tasks[index]!.gold as string);
  const score = await made.score();
  return { text: step.observation.text, value: score.value };
}

afterAll(async () => {
  await Promise.all(envs.map((made) => made.close()));
  await provider.close();
});

describe('BashEnv deterministic mode', () => {
  it('pins the clock, time zone, locale, umask and host name, the same in the agent and the gold', async ({
    needs,
    cache: _cache,
  }) => {
    needs(noBwrap);
    needs(noFaketime);
    const { text, value } = await play(env(true), 0);
    expect(text).toBe(`${clockS}\nThu Jun  1 12:00:00 UTC 2023\nUTC C.UTF-8\n0022\nsandbox\n`);
    expect(value).toBe(1);
  }, 120_000);

  it("pins the times the setup script set to now, keeps the ones it set itself, and runs it on the clock's day", async ({
    needs,
    cache: _cache,
  }) => {
    needs(noBwrap);
    needs(noFaketime);
    const { text } = await play(env(true), 1);
    const recent = Date.UTC(2023, 4, 31, 23, 59, 59) / 1000;
    // The explicit time of recent.txt is local time of the build, which is UTC in the sandbox.
    expect(text).toBe(
      `/proj/a.txt ${madeAtS} ${madeAtS}\n/proj/sub ${madeAtS} ${madeAtS}\n` +
        `/proj/recent.txt ${recent} ${madeAtS}\n${madeAtS}\n`,
    );
    // find's idea of "now" is the pinned clock: recent.txt is 12 hours old, the rest half an hour.
    const found = await play(env(true), 2);
    expect(found.text).toBe(
      '/proj/a.tar\n/proj/a.txt\n/proj/made-at.txt\n/proj/recent.txt\n/proj/sub/b.txt\n' +
        '/proj/a.tar\n/proj/a.txt\n/proj/made-at.txt\n/proj/recent.txt\n/proj/sub/b.txt\n' +
        '/proj/a.txt\n',
    );
    expect(found.value).toBe(1);
    // The archive the script made holds the pinned instant, so extracting it warns of no future time.
    const archive = await play(env(true), 4);
    expect(archive.text).toBe('-rw-r--r-- root/root         2 2023-06-01 11:30:00 a.txt\nextracted\n');
    expect(archive.value).toBe(1);
  }, 180_000);

  it('runs the programs that hang under libfaketime (dig) with the real clock, through a wrapper', async ({
    needs,
    cache: _cache,
  }) => {
    needs(noBwrap);
    needs(noFaketime);
    const { text, value } = await play(env(true), 5);
    // No network: dig fails (exit 9), but it ends, and `date` after it is pinned again.
    expect(text).toBe(`dig exit 9\n/opt/intercode/clockless/dig\n${clockS}\n`);
    expect(value).toBe(1);
  }, 120_000);

  it("pins Python's hash seed: two environments print the same hashes and set order", async ({
    needs,
    cache: _cache,
  }) => {
    needs(noBwrap);
    needs(noFaketime);
    const [a, b] = await Promise.all([play(env(true), 3), play(env(true), 3)]);
    expect(a.text).toMatch(/^-?\d+ \[/);
    expect(b.text).toBe(a.text);
  }, 120_000);

  it('off: the clock is the real one and the layer keeps the times of its build', async ({
    needs,
    cache: _cache,
  }) => {
    needs(noBwrap);
    const before = Math.floor(Date.now() / 1000);
    const { text } = await play(env(false), 1);
    const times = text.split('\n')[0]!.split(' ').slice(1).map(Number);
    // Built now (this file's own cache), the plain layer's times are the build's.
    expect(times[0]).toBeGreaterThanOrEqual(before - 5);
    const clock = await play(env(false), 0);
    expect(Number(clock.text.split('\n')[0])).toBeGreaterThanOrEqual(before);
  }, 180_000);
});
