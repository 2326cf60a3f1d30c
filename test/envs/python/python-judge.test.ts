import { afterAll, describe, expect } from 'vitest';
import type { Dataset, Task } from '../../../src/core/task.js';
import { RESTARTED } from '../../../src/envs/python/observation-text.js';
import { PythonEnv } from '../../../src/envs/python/python-env.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// The judge's semantics on real sandboxes: honest functions score as upstream scored them, whatever
// they return (plain values, generators, printed output) and however the tests call them (several
// calls per test, short-circuits that leave the probe's calls made ahead unused, builtin arguments).
const provider = new BwrapProvider();
const noBwrap = await bwrapMissing();
const envs: PythonEnv[] = [];

function task(id: string, gold: string, tests: string[], setup = ''): Task {
  return { id, index: 0, query: id, gold, meta: { tests, test_setup_code: setup } };
}

const TASKS: Task[] = [
  task('pairs', 'def pairs(n):\n    return [(i, i * i) for i in range(n)]', [
    'assert pairs(3) == [(0, 0), (1, 1), (2, 4)]',
    'assert pairs(0) == []',
  ]),
  task('evens', 'def evens(n):\n    return (i for i in range(n) if i % 2 == 0)', [
    'assert list(evens(7)) == [0, 2, 4, 6]',
    'assert sum(evens(5)) == 6',
  ]),
  task('chatty', 'def chatty(x):\n    print("got", x)\n    return x + 1', [
    'assert chatty(1) == 2',
    'assert chatty(2) == 3 and chatty(3) == 4',
  ]),
  task('sum', 'def sum(a, b):\n    return a + b', ['assert sum(2, 3) == 5', 'assert sum(-1, 1) == 0']),
  task('keep', 'def keep(items, kind):\n    return [x for x in items if isinstance(x, kind)]', [
    "assert keep([1, 'a', 2.5, 3], int) == [1, 3]",
  ]),
  // Values past one read of the driver (1 MiB) each way: a 3 MiB string back from the agent's
  // function, a 2 MiB argument to it.
  task('big', "def big(n, pad=''):\n    return 'ab' * n + pad[:0]", [
    "assert big(1_500_000) == 'ab' * 1_500_000",
    "assert big(3, 'z' * 2_000_000) == 'ababab'",
  ]),
  task('count', 'def count(x):\n    return x', [
    'assert count(1) == 1 or count(2) == 2',
    'assert count(3) == 3',
    'assert count(count(4)) == 4',
  ]),
];

const dataset: Dataset = { id: 'judge-cases', env: 'python', tasks: TASKS, assets: {} } as unknown as Dataset;

afterAll(async () => {
  await Promise.all(envs.map((env) => env.close()));
  await provider.close();
});

function theEnv(): PythonEnv {
  const env = envs[0] ?? new PythonEnv({ dataset, provider, actionTimeoutMs: 10_000 });
  if (envs.length === 0) envs.push(env);
  return env;
}

/** The reward of `code` submitted (`score`: judged by `score()`, as Try Again does every turn, instead). */
async function play(
  id: string,
  code: string,
  name = id,
  how: 'submit' | 'score' = 'submit',
): Promise<number> {
  const env = theEnv();
  await env.reset({ taskId: id });
  await env.step(code);
  return how === 'score' ? (await env.score()).value : (await env.step(`submit ${name}`)).reward;
}

describe('the judge scores honest functions as upstream did', () => {
  it('plain results, generators, output, builtin names and builtin arguments', async ({ needs }) => {
    needs(noBwrap);
    for (const t of TASKS) expect(await play(t.id, t.gold as string), t.id).toBe(1);
    // The same output through fd 1 directly (past the probe's capture of a call made ahead).
    const fd = 'def chatty(x):\n    import os\n    os.write(1, ("got %d\\n" % x).encode())\n    return x + 1';
    expect(await play('chatty', fd)).toBe(1);
    // Different output: that test disagrees, as upstream's output comparison had it.
    expect(await play('chatty', 'def chatty(x):\n    print("took", x)\n    return x + 1')).toBe(0);
    // A value of megabytes that differs in its last character.
    expect(await play('big', "def big(n, pad=''):\n    return 'ab' * n + 'b'[:n % 2]")).toBe(0.5);
  });

  it('a stateful function is called exactly as the tests call it, even past a short-circuit', async ({
    needs,
  }) => {
    needs(noBwrap);
    // The probe makes the literal calls ahead: 1, 2 (past the short-circuit), 3, 4. The tests make
    // 1, 3, 4 and then one with the result of 4. Wrong on count(3) only when it is the third call: the
    // tests never make it so (each answer is used only for the very call, in order, it was made for).
    const wrongAhead =
      'def count(x, _seen=[]):\n    _seen.append(x)\n    return -1 if (x == 3 and len(_seen) == 3) else x';
    expect(await play('count', wrongAhead)).toBe(1);
    // Wrong on the tests' second call (count(3)): after the calls made ahead, the probe's list is longer;
    // the tests are judged again call by call, on a probe with no call made ahead.
    const wrongSecond =
      'def count(x, _seen=[]):\n    _seen.append(x)\n    return -1 if len(_seen) == 2 else x';
    expect(await play('count', wrongSecond)).toBeCloseTo(2 / 3, 12);
    // The same through score(), whose probe makes the calls ahead (a submission's makes none: below).
    expect(await play('count', wrongAhead, 'count', 'score')).toBe(1);
    expect(await play('count', wrongSecond, 'count', 'score')).toBeCloseTo(2 / 3, 12);
    for (const t of TASKS) expect(await play(t.id, t.gold as string, t.id, 'score'), t.id).toBe(1);
  });
});

describe('whose interpreter answers the tests', () => {
  const define = 'import os\nPID = os.getpid()\ndef count(x):\n    return x if os.getpid() == PID else -1';

  it('score(): a copy of the agent’s worker, which stays as it was', async ({ needs }) => {
    needs(noBwrap);
    const env = theEnv();
    await env.reset({ taskId: 'count' });
    const pid = (await env.step(`${define}\nprint(PID)`)).observation.text;
    expect(pid).toMatch(/^\d+$/);
    // The copy's pid differs from the worker's: every call answers -1.
    expect((await env.score()).value).toBe(0);
    expect((await env.step('print(PID, os.getpid() == PID)')).observation.text).toBe(`${pid} True`);
  });

  it('a submission: the agent’s worker itself, which ends with it', async ({ needs }) => {
    needs(noBwrap);
    const env = theEnv();
    await env.reset({ taskId: 'count' });
    await env.step(define);
    const submitted = await env.step('submit count');
    expect(submitted).toMatchObject({ reward: 1, terminated: true });
    // A step after the end of the episode finds a fresh interpreter, and says so.
    const after = await env.step('print("PID" in globals())');
    expect(after.observation.text).toBe(`False\n${RESTARTED}`);
    expect(after.info.sessionRestarted).toBe(true);
  });
});
