/**
 * The gold in upstream compatibility mode: upstream's evaluator ran the gold as it ran the agent's
 * actions (`bash -c "<gold>"` split by `shlex`, no escaping), so the gold's inner double quotes
 * vanish there, and a gold `shlex` cannot split is a corrupt gold with no output. The default mode
 * runs the gold as written. Real bwrap sandboxes.
 */
import { afterAll, describe, expect } from 'vitest';
import type { Dataset, Task } from '../../../src/core/task.js';
import { BashEnv } from '../../../src/envs/bash/bash-env.js';
import type { Compat } from '../../../src/envs/env-definition.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

const noBwrap = await bwrapMissing();
const provider = new BwrapProvider();
const golds = [
  'echo "a  b"',
  `echo "it's"`,
  // What the sandbox holds besides the command (/dev): the same on the agent's side and the gold's.
  'ls -a /dev',
];
const tasks: Task[] = golds.map((gold, index) => ({
  id: `t${index}`,
  index,
  query: 'Say it.',
  gold,
  meta: {},
}));
const dataset: Dataset = { id: 'upstream-gold', env: 'bash', tasks, assets: {} };

afterAll(() => provider.close());

/** The gold's recorded output and the score after the agent ran `action` in the given mode. */
async function scored(compat: Compat, index: number, action: string) {
  const env = new BashEnv({ dataset, provider, compat, warm: false });
  try {
    await env.reset({ index });
    const step = await env.step(action);
    const score = await env.score();
    return { observation: step.observation.text, goldOutput: score.details?.goldOutput, score };
  } finally {
    await env.close();
  }
}

describe('the Bash gold in upstream compatibility mode', () => {
  it("mangles the gold's quotes as upstream's evaluator did, and only in that mode", async ({ needs }) => {
    needs(noBwrap);
    const upstream = await scored('upstream', 0, 'echo "a  b"');
    expect(upstream.observation).toBe('a\n');
    expect(upstream.goldOutput).toBe('a\n');
    expect(upstream.score.value).toBe(1);
    const fixed = await scored('fixed', 0, 'echo "a  b"');
    expect(fixed.goldOutput).toBe('a  b\n');
    expect(fixed.score.value).toBe(1);
    // The fixed agent's output against the upstream gold's: not the same answer.
    const mixed = await scored('upstream', 0, 'echo a  b');
    expect(mixed.score.value).toBeLessThan(1);
  });

  it("runs the gold as the agent's actions run, in a sandbox that looks the same, episode after episode", async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = new BashEnv({ dataset, provider, compat: 'upstream', warm: false });
    try {
      for (let episode = 0; episode < 3; episode += 1) {
        await env.reset({ index: 2 });
        const step = await env.step(golds[2]!);
        const score = await env.score();
        expect(score.details?.goldOutput).toBe(step.observation.text);
        expect(score.value).toBe(1);
      }
    } finally {
      await env.close();
    }
  });

  it('makes a gold that shlex cannot split corrupt, with no output, as upstream did', async ({ needs }) => {
    needs(noBwrap);
    const upstream = await scored('upstream', 1, 'echo its');
    expect(upstream.score.goldCorrupt).toBe(true);
    expect(upstream.goldOutput).toBeNull();
    const fixed = await scored('fixed', 1, `echo "it's"`);
    expect(fixed.score.goldCorrupt).toBeUndefined();
    expect(fixed.goldOutput).toBe("it's\n");
  });
});
