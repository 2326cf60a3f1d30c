import { afterAll, describe, expect } from 'vitest';
import type { Dataset } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { PythonEnv } from '../../../src/envs/python/python-env.js';
import { DETERMINISTIC_CLOCK_MS } from '../../../src/sandbox/deterministic-clock.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing, faketimeMissing } from '../../support/missing-components.js';

// Deterministic mode of the Python env (real bwrap sandboxes): the hash seed is the same in every
// interpreter (isolated mode would ignore PYTHONHASHSEED), programs it starts see the pinned clock.
const provider = new BwrapProvider();
const noBwrap = await bwrapMissing();
const noFaketime = faketimeMissing();
const envs: PythonEnv[] = [];

const PROBE = `import os, subprocess
print(hash('intercode'), sorted({'b', 'a'}) == ['a', 'b'], list({'x', 'y', 'z', 'w'}))
print(subprocess.run(['date', '+%s %Z'], capture_output=True, text=True).stdout.strip(), os.environ.get('TZ'))`;

/** The probe's output in a fresh episode of a new env (a new interpreter). */
async function probe(dataset: Dataset, deterministic: boolean): Promise<string> {
  const env = new PythonEnv({
    dataset,
    provider,
    ...(deterministic ? { deterministic: { clockMs: DETERMINISTIC_CLOCK_MS } } : {}),
  });
  envs.push(env);
  await env.reset({ index: 0 });
  return (await env.step(PROBE)).observation.text;
}

afterAll(async () => {
  await Promise.all(envs.map((env) => env.close()));
  await provider.close();
});

describe('PythonEnv deterministic mode', () => {
  it('gives every interpreter the same hash seed and the pinned clock to the programs it starts', async ({
    needs,
  }) => {
    needs(noBwrap);
    needs(noFaketime);
    const dataset = await resolveDataset('demo/python');
    const [a, b] = await Promise.all([probe(dataset, true), probe(dataset, true)]);
    const lines = a.split('\n');
    expect(lines[0]).toMatch(/^-?\d+ True \[/);
    expect(lines[1]).toBe(`${DETERMINISTIC_CLOCK_MS / 1000} UTC UTC`);
    // Two interpreters started apart: the same hashes and the same set order.
    expect(b).toBe(a);
  }, 120_000);

  it('off: the clock is the real one', async ({ needs }) => {
    needs(noBwrap);
    const dataset = await resolveDataset('demo/python');
    const before = Math.floor(Date.now() / 1000);
    const text = await probe(dataset, false);
    expect(Number(text.split('\n')[1]!.split(' ')[0])).toBeGreaterThanOrEqual(before);
  }, 120_000);
});
