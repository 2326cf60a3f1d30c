/**
 * Every fork the Python driver makes (a fresh worker from the zygote, a warm pool's spare, a submission's
 * probe from the agent's worker, a branch of `fork`) follows a `gc.freeze()` in the forking process, so the
 * child's collections never walk (and copy, page by page) what it inherited. Observed from agent code
 * through `gc.get_freeze_count()`, on demo/python in real bwrap sandboxes.
 */
import { describe, expect } from 'vitest';
import type { StepResult } from '../../../src/core/env.js';
import { it } from '../../support/fixtures.js';
import { pythonEnvSuite } from './python-env-suite.js';

const suite = await pythonEnvSuite({ actionTimeoutMs: 2000 });
const { noBwrap } = suite;
const pythonEnv = suite.env;
const text = (step: StepResult) => step.observation.text;
/** 5,000 lists the collector tracks, and the frozen count before them. */
const MAKE_OBJECTS = 'import gc\nbefore = gc.get_freeze_count()\nmine = [[] for _ in range(5000)]';

describe('gc.freeze() before every fork of the Python driver', () => {
  for (const warm of [true, false]) {
    it(`a fresh worker finds the driver's objects frozen (warm pool ${warm ? 'on' : 'off'})`, async ({
      needs,
    }) => {
      needs(noBwrap);
      const env = pythonEnv({ warm });
      await env.reset({ taskId: 'digit-product' });
      // The driver's modules, functions and tables: thousands of objects.
      await env.step('import gc');
      expect(text(await env.step('gc.get_freeze_count() > 2000'))).toBe('True');
      // Frozen objects are still freed by reference counting, and the code's own collections work.
      expect(
        text(await env.step('class Cycle: pass\nc = Cycle(); c.me = c; del c\nprint(gc.collect() >= 1)')),
      ).toBe('True');
      await env.reset({ taskId: 'digit-product' });
      expect(text(await env.step('"before" in dir() or "Cycle" in dir()'))).toBe('False');
    });
  }

  it("a score's probe (Try Again) finds the agent's objects frozen, and the score is unchanged", async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = pythonEnv();
    await env.reset({ taskId: 'digit-product' });
    await env.step(MAKE_OBJECTS);
    expect(text(await env.step('gc.get_freeze_count() == before'))).toBe('True');
    // Right only where the agent worker's lists were frozen when it forked the copy that answers the tests.
    await env.step(
      [
        'def digit_product(n):',
        '    if gc.get_freeze_count() < before + 5000:',
        '        return -1',
        '    p = 1',
        '    for c in str(n):',
        '        p *= int(c)',
        '    return p',
      ].join('\n'),
    );
    expect((await env.score()).value).toBe(1);
  });

  it("a branch of fork finds the template's objects frozen; the branches stay independent", async ({
    needs,
  }) => {
    needs(noBwrap);
    const original = pythonEnv();
    await original.reset({ taskId: 'digit-product' });
    await original.step(MAKE_OBJECTS);
    const { envs } = await original.fork!(1);
    const copy = envs[0]!;
    // The copy acts first: it is forked from the template (the original takes the template itself).
    expect(text(await copy.step('gc.get_freeze_count() >= before + 5000'))).toBe('True');
    await copy.step('mine.clear()');
    expect(text(await copy.step('len(mine)'))).toBe('0');
    expect(text(await original.step('len(mine)'))).toBe('5000');
    await copy.close();
  });
});
