/**
 * Branching Python episodes: `PythonEnv.fork(n)` on demo/python in real bwrap sandboxes. The copies are
 * forks of the agent's worker: globals, imported modules and scores are each copy's own; a copy's
 * timeout, crash or reset leaves the others be; the original can close first; what a fork cannot copy
 * (the shared file system, threads, open files, child processes) is named in `notCopied`.
 */
import { afterAll, describe, expect } from 'vitest';
import type { Env, StepResult } from '../../../src/core/env.js';
import { IntercodeError } from '../../../src/core/errors.js';
import type { Dataset } from '../../../src/core/task.js';
import { TimeLimit } from '../../../src/core/time-limit.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { PythonEnv, type PythonEnvOptions } from '../../../src/envs/python/python-env.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

const provider = new BwrapProvider();
const opened: Env[] = [];
const noBwrap = await bwrapMissing();
let dataset: Dataset;

function pythonEnv(options: Partial<PythonEnvOptions> = {}): PythonEnv {
  const env = new PythonEnv({ dataset, provider, actionTimeoutMs: 2000, ...options });
  opened.push(env);
  return env;
}

async function forked(source: Env, count: number): Promise<{ envs: Env[]; notCopied: readonly string[] }> {
  const result = await source.fork!(count);
  opened.push(...result.envs);
  return result;
}

const text = (step: StepResult) => step.observation.text;
const GOLD = 'def digit_product(n):\n    p = 1\n    for c in str(n):\n        p *= int(c)\n    return p';

it.beforeAll(async ({ cache: _cache }) => {
  dataset = await resolveDataset('demo/python');
}, 60_000);

afterAll(async () => {
  await Promise.all(opened.map((env) => env.close()));
  await provider.close();
});

describe('PythonEnv.fork', () => {
  it('gives copies whose globals and modules are their own', async ({ needs }) => {
    needs(noBwrap);
    const original = pythonEnv();
    await original.reset({ taskId: 'digit-product' });
    await original.step('x = [1, 2]');
    await original.step('import fractions');
    const { envs } = await forked(original, 3);
    const [a, b, c] = envs;
    expect(envs).toHaveLength(3);
    await a!.step('x.append(3)');
    await b!.step('del fractions; import sys; del sys.modules["fractions"]');
    await original.step('x = "original"');
    expect(text(await a!.step('x'))).toBe('[1, 2, 3]');
    expect(text(await b!.step('x'))).toBe('[1, 2]');
    expect(text(await c!.step('x'))).toBe('[1, 2]');
    expect(text(await original.step('x'))).toBe('original');
    expect(text(await b!.step('"fractions" in dir()'))).toBe('False');
    expect(text(await c!.step('fractions.Fraction(1, 2)'))).toBe('1/2');
    // Copies used at once take turns on the shared driver, each with its own state.
    await Promise.all(envs.map((copy, i) => copy.step(`y = ${i}`)));
    const ys = await Promise.all(envs.map(async (copy) => text(await copy.step('y'))));
    expect(ys).toEqual(['0', '1', '2']);
    // A copy of a copy starts from the copy.
    const [grandchild] = (await forked(a!, 1)).envs;
    await a!.step('x.clear()');
    expect(text(await grandchild!.step('x'))).toBe('[1, 2, 3]');
    expect(text(await a!.step('x'))).toBe('[]');
  });

  it('scores each copy on its own functions, and a submission ends only that branch', async ({ needs }) => {
    needs(noBwrap);
    const original = pythonEnv();
    await original.reset({ taskId: 'digit-product' });
    await original.step('def digit_product(n):\n    return 0');
    const [fixed, untouched] = (await forked(original, 2)).envs;
    await fixed!.step(GOLD);
    expect((await fixed!.score()).value).toBe(1);
    expect((await untouched!.score()).value).toBeLessThan(1);
    const submitted = await fixed!.step('submit digit_product');
    expect(submitted).toMatchObject({ reward: 1, terminated: true });
    expect((await original.score()).value).toBe((await untouched!.score()).value);
    expect(text(await untouched!.step('digit_product(99)'))).toBe('0');
  });

  it('with compat "upstream", scoring a copy (which resets its interpreter) leaves the others be', async ({
    needs,
  }) => {
    needs(noBwrap);
    const original = pythonEnv({ compat: 'upstream' });
    await original.reset({ taskId: 'digit-product' });
    await original.step('kept = 1');
    await original.step(GOLD);
    const [copy] = (await forked(original, 1)).envs;
    expect((await copy!.score()).value).toBe(1);
    expect(text(await copy!.step('"kept" in dir()'))).toBe('False');
    expect(text(await original.step('kept'))).toBe('1');
  });

  it("a copy's timeout and crash restart only that copy", async ({ needs }) => {
    needs(noBwrap);
    const original = pythonEnv();
    await original.reset({ taskId: 'digit-product' });
    await original.step('kept = 42');
    await original.step("import subprocess; bg = subprocess.Popen(['sleep', '60'])");
    const { envs, notCopied } = await forked(original, 3);
    const [looping, crashing, calm] = envs;
    expect(notCopied.some((note) => /1 process the agent's code started/.test(note))).toBe(true);
    // An interrupted loop keeps the copy's globals; one that ignores the interrupt costs its worker.
    const interrupted = await looping!.step('n = 0\nwhile True: n += 1');
    expect(interrupted.observation.timedOut).toBe(true);
    expect(text(await looping!.step('kept'))).toBe('42');
    const killed = await looping!.step(
      'import signal; signal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True: n += 1',
    );
    expect(killed.observation.timedOut).toBe(true);
    expect(killed.info.sessionRestarted).toBe(true);
    const crashed = await crashing!.step('import os; os._exit(3)');
    expect(crashed.info.sessionRestarted).toBe(true);
    expect(text(await crashing!.step('"kept" in dir()'))).toBe('False');
    expect(text(await calm!.step('kept'))).toBe('42');
    expect(text(await original.step('kept'))).toBe('42');
    // The background process stayed with the original, through its siblings' timeouts.
    expect(text(await original.step('bg.poll()'))).toBe('None');
  });

  it('copies outlive the original, and a reset gives a copy sandboxes of its own', async ({ needs }) => {
    needs(noBwrap);
    const original = pythonEnv();
    await original.reset({ taskId: 'digit-product' });
    await original.step('kept = "before"');
    const [first, second] = (await forked(original, 2)).envs;
    await original.close();
    expect(text(await first!.step('kept'))).toBe('before');
    await first!.reset({ taskId: 'vowel-count' });
    expect(text(await first!.step('"kept" in dir()'))).toBe('False');
    expect(text(await second!.step('kept'))).toBe('before');
    await first!.close();
    expect(text(await second!.step('kept'))).toBe('before');
    // The last holder of the sandboxes resets in them, as an env that never forked.
    await second!.reset({ taskId: 'digit-product' });
    expect(text(await second!.step('"kept" in dir()'))).toBe('False');
  });

  it('a close that comes while a fork is under way leaves the copies their sandboxes', async ({ needs }) => {
    needs(noBwrap);
    const original = pythonEnv();
    await original.reset({ taskId: 'digit-product' });
    await original.step('kept = "mine"');
    const forking = forked(original, 2);
    await original.close();
    const { envs } = await forking;
    expect(text(await envs[0]!.step('kept'))).toBe('mine');
    await envs[0]!.close();
    expect(text(await envs[1]!.step('kept'))).toBe('mine');
  });

  it('says what the copies share or lack: the file system, threads, open files', async ({ needs }) => {
    needs(noBwrap);
    const original = pythonEnv();
    await original.reset({ taskId: 'digit-product' });
    const plain = await forked(original, 1);
    expect(plain.notCopied).toEqual([expect.stringMatching(/file system/)]);
    await original.step("log = open('/tmp/log.txt', 'w')");
    await original.step(
      'import threading, time; threading.Thread(target=time.sleep, args=(60,), daemon=True).start()',
    );
    const { envs, notCopied } = await forked(original, 1);
    expect(notCopied).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/file system/),
        expect.stringMatching(/^1 thread besides the main one/),
        expect.stringMatching(/^1 open file: .*position/),
      ]),
    );
    // The file system is shared, as stated: a file one writes, the other reads.
    await envs[0]!.step("open('/tmp/shared.txt', 'w').write('from the copy')");
    expect(text(await original.step("open('/tmp/shared.txt').read()"))).toBe('from the copy');
  });

  it('checks the count, needs a reset, and passes through TimeLimit', async ({ needs }) => {
    needs(noBwrap);
    const env = pythonEnv();
    const code = async (work: Promise<unknown>) =>
      work.then(
        () => 'resolved',
        (error: unknown) => (IntercodeError.isInstance(error) ? error.code : String(error)),
      );
    expect(await code(env.fork(1))).toBe('ENV_RESET_NEEDED');
    await env.reset({ taskId: 'digit-product' });
    for (const count of [0, 65, 1.5, Number.NaN])
      expect(await code(env.fork(count))).toBe('ENV_INVALID_ACTION');
    const limited = new TimeLimit(pythonEnv(), 5);
    await limited.reset({ taskId: 'digit-product' });
    await limited.step('y = 7');
    const [copy] = (await forked(limited, 1)).envs;
    expect(text(await copy!.step('y'))).toBe('7');
    await env.close();
    expect(await code(env.fork(1))).toBe('ENV_CLOSED');
  });
});
