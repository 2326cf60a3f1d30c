import { afterAll, describe, expect } from 'vitest';
import { runSandboxBench } from '../../../src/harness/bench/sandbox-bench.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// The `sandbox` group of `intercode bench` on real bwrap sandboxes: every figure measured, the
// reset both ways (in place, and after an episode that leaves what forces a new process tree).
const provider = new BwrapProvider();
const noBwrap = await bwrapMissing();

afterAll(async () => {
  await provider.close();
});

describe('sandbox bench', () => {
  it('measures create, round trips, exec, both kinds of reset, idle memory and concurrency', async ({
    needs,
  }) => {
    needs(noBwrap);
    const figures = await runSandboxBench(provider, { samples: 3, concurrent: 3, idle: 2 });
    const byName = new Map(figures.map((entry) => [entry.name, entry]));
    expect([...byName.keys()]).toEqual([
      'create (shell ready)',
      'session round trip: true',
      'session round trip: echo',
      'exec: true (fresh process tree)',
      'reset (changes dropped, shell ready)',
      'reset after an episode left an IPC object (new process tree)',
      'memory per idle sandbox (PSS, with shell)',
      'memory per idle sandbox (RSS, shared pages counted fully)',
      '3 concurrent sandboxes: failures',
      '3 concurrent sandboxes: wall time',
    ]);
    for (const name of [
      'reset (changes dropped, shell ready)',
      'reset after an episode left an IPC object (new process tree)',
    ]) {
      expect(byName.get(name)).toMatchObject({ backend: 'bwrap', group: 'sandbox', unit: 'ms', n: 3 });
      expect(byName.get(name)?.p50).toBeGreaterThan(0);
    }
    expect(byName.get('3 concurrent sandboxes: failures')?.max).toBe(0);
  });
});
