import { describe, expect } from 'vitest';
import { SandboxError } from '../../../src/core/errors.js';
import type { Dataset, Task } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { PythonEnv } from '../../../src/envs/python/python-env.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import type { Sandbox, SandboxProvider, SandboxSpec } from '../../../src/sandbox/sandbox.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// The Python env's evaluation sandbox opens once the agent's is ready, while the first episode
// already runs: the first observation does not wait for it, the gold run and the scoring do, and
// one that could not open fails the scoring and is opened anew (with the agent's) at the next reset.

const noBwrap = await bwrapMissing();

/**
 * A real provider whose creates of evaluation sandboxes (label `python-eval`) wait for `release()`,
 * and fail while `failing` is set; it keeps the specs it was given.
 */
function gatedProvider(real: SandboxProvider) {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const state = { failing: false, specs: [] as SandboxSpec[] };
  const provider: SandboxProvider = {
    id: real.id,
    defaultImage: real.defaultImage,
    checkImage: (image) => real.checkImage(image),
    check: () => real.check(),
    close: () => real.close(),
    async create(spec: SandboxSpec = {}): Promise<Sandbox> {
      state.specs.push(spec);
      if (spec.label === 'python-eval') {
        await gate;
        if (state.failing)
          throw new SandboxError('SANDBOX_START_FAILED', 'the evaluation sandbox refused to start');
      }
      return real.create(spec);
    },
  };
  return {
    provider,
    state,
    release() {
      open();
    },
  };
}

/** A Python env on demo/python over a gated real bwrap provider (both closed by the caller). */
function gatedEnv() {
  const real = new BwrapProvider();
  const gated = gatedProvider(real);
  const env = new PythonEnv({ dataset, provider: gated.provider, actionTimeoutMs: 5000 });
  return { real, gated, env };
}

let dataset: Dataset;
it.beforeAll(async ({ cache: _cache }) => {
  dataset = await resolveDataset('demo/python');
}, 60_000);

function task(id: string): Task {
  const found = dataset.tasks.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no demo task ${id}`);
  return found;
}

describe('PythonEnv evaluation sandbox, opened while the first episode runs', () => {
  it('gives the first observation before the evaluation sandbox is open; the submission waits for it', async ({
    needs,
  }) => {
    needs(noBwrap);
    const { real, gated, env } = gatedEnv();
    try {
      const { observation } = await env.reset({ taskId: 'digit-product' });
      expect(observation.text).toBe(task('digit-product').query);
      // The agent's sandbox alone was created so far, and the evaluation sandbox is asked for.
      expect(gated.state.specs.map((spec) => spec.label)).toEqual(['python-agent', 'python-eval']);
      // Both run the interpreter as their own program: neither starts a shell it would not use.
      expect(gated.state.specs.every((spec) => spec.lazyShell === true)).toBe(true);
      expect((await env.step('2 + 3')).observation.text).toBe('5');
      await env.step(task('digit-product').gold as string);
      const submitted = env.step('submit digit_product');
      const early = await Promise.race([
        submitted.then(() => 'scored'),
        new Promise((resolve) => setTimeout(resolve, 300, 'waiting')),
      ]);
      expect(early).toBe('waiting');
      gated.release();
      expect((await submitted).reward).toBe(1);
    } finally {
      gated.release();
      await env.close();
      await real.close();
    }
  });

  it('fails the scoring when the evaluation sandbox could not open, and opens both anew at the next reset', async ({
    needs,
  }) => {
    needs(noBwrap);
    const { real, gated, env } = gatedEnv();
    gated.state.failing = true;
    gated.release();
    try {
      await env.reset({ taskId: 'digit-product' });
      await env.step(task('digit-product').gold as string);
      await expect(env.step('submit digit_product')).rejects.toMatchObject({
        name: 'SandboxError',
        code: 'SANDBOX_START_FAILED',
        message: expect.stringContaining('the evaluation sandbox refused to start'),
      });
      gated.state.failing = false;
      await env.reset({ taskId: 'digit-product' });
      // The failed pair was closed and a new agent sandbox opened with a new evaluation sandbox.
      expect(gated.state.specs.map((spec) => spec.label)).toEqual([
        'python-agent',
        'python-eval',
        'python-agent',
        'python-eval',
      ]);
      await env.step(task('digit-product').gold as string);
      expect((await env.step('submit digit_product')).reward).toBe(1);
      // The first agent sandbox is closed: the open ones are the new pair.
      expect(real.size).toBe(2);
    } finally {
      await env.close();
      expect(real.size).toBe(0);
      await real.close();
    }
  });
});
