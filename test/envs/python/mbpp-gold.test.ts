import { afterAll, describe, expect } from 'vitest';
import type { Dataset } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { createEnvRegistry } from '../../../src/envs/env-registry.js';
import { PythonEnv } from '../../../src/envs/python/python-env.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// A small MBPP subset played with the registered gold actions, on the upstream mirror.
const provider = new BwrapProvider();
const goldActions = createEnvRegistry().get('python').goldActions;
let dataset: Dataset;
let env: PythonEnv;
const noBwrap = await bwrapMissing();

// The file's own cache (INTERCODE_CACHE_DIR) and the local mirror (INTERCODE_DATA_MIRROR) for
// everything below.
it.beforeAll(async ({ cache: _cache, mirror: _mirror }) => {
  dataset = await resolveDataset('mbpp/test');
  env = new PythonEnv({ dataset, provider });
}, 60_000);

afterAll(async () => {
  await env.close();
  await provider.close();
});

async function playGold(id: string) {
  const task = dataset.tasks.find((candidate) => candidate.id === id)!;
  await env.reset({ taskId: id });
  const actions = goldActions(task);
  let last = await env.step(actions[0]!);
  for (const action of actions.slice(1)) last = await env.step(action);
  return { actions, last };
}

describe('MBPP gold subset', () => {
  it.for(['1', '2', '3', '4', '5', '11', '18', '32', '157', '255', '600'])(
    'task %s: the gold scores 1.0 and is not corrupt',
    { timeout: 60_000 },
    async (id, { needs }) => {
      needs(noBwrap);
      const { last } = await playGold(id);
      expect(last.reward).toBe(1);
      expect(last.info.score?.goldCorrupt).toBeUndefined();
    },
  );

  it('sends a gold that starts with `from … import` with a leading import, so it is not print-wrapped', () => {
    const task = dataset.tasks.find((candidate) => candidate.id === '157')!;
    const [code, submit] = goldActions(task);
    expect(code).toBe(`import builtins\n${task.gold as string}`);
    expect(submit).toBe('submit encode_list');
  });

  it('flags task 367 corrupt: upstream runs its setup code (which needs the gold class) before the gold', async ({
    needs,
  }) => {
    needs(noBwrap);
    const { last } = await playGold('367');
    expect(last.reward).toBe(0);
    expect(last.info.score).toMatchObject({ goldCorrupt: true });
    expect((last.info.score!.details as { goldProblem: string }).goldProblem).toMatch(
      /test setup code: Error: name 'Node'/,
    );
  }, 60_000);
});
