import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { DEMO_BASH_SETUP } from '../../../src/datasets/demo/demo-bash-setup.js';
import { DEMO_BASH_TASKS } from '../../../src/datasets/demo/demo-bash-tasks.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import type { Sandbox } from '../../../src/sandbox/sandbox.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// Runs the demo's setup script and every gold in real bwrap sandboxes.
const provider = new BwrapProvider();
const noBwrap = await bwrapMissing();
let layer = '';

const LISTING =
  "find /demo -printf '%p %y %m %s %T@\\n' | sort && find /demo -type f -exec md5sum {} + | sort";

async function build(): Promise<Sandbox> {
  const sandbox = await provider.create({ label: 'demo-bash-setup' });
  const setup = await sandbox.exec('bash -s', { stdin: DEMO_BASH_SETUP });
  expect(setup.output).toBe('');
  expect(setup.exitCode).toBe(0);
  return sandbox;
}

it.beforeAll(async ({ fileTempDir }) => {
  if (noBwrap) return;
  const sandbox = await build();
  layer = join(fileTempDir('demo-layer'), 'layer');
  await sandbox.snapshot(layer);
  await sandbox.close();
});

afterAll(async () => {
  await provider.close();
});

describe('demo/bash', () => {
  it('builds the same /demo every time: bytes, modes and time stamps', async ({ needs }) => {
    needs(noBwrap);
    const [first, second] = await Promise.all([build(), build()]);
    const [a, b] = await Promise.all([first.exec(LISTING), second.exec(LISTING)]);
    await Promise.all([first.close(), second.close()]);
    expect(a.exitCode).toBe(0);
    expect(a.output).toContain('/demo/archive/bundle.tar f 644 10240 1684000000');
    expect(b.output).toBe(a.output);
  });

  it('every gold succeeds, does something visible, and does the same thing twice', async ({ needs }) => {
    needs(noBwrap);
    const sandbox = await provider.create({ layers: [layer], label: 'demo-bash-gold' });
    try {
      for (const task of DEMO_BASH_TASKS) {
        const runs: { output: string; changes: string; touched: number }[] = [];
        for (let attempt = 0; attempt < 2; attempt++) {
          await sandbox.reset();
          const result = await sandbox.session().run(task.gold);
          expect({ id: task.id, exitCode: result.exitCode }).toEqual({ id: task.id, exitCode: 0 });
          const changes = await sandbox.diff();
          const touched = changes.map((change) => change.path).filter((path) => path.startsWith('/demo'));
          const digests = await sandbox.digest(touched);
          runs.push({
            output: result.output,
            changes: JSON.stringify([changes, digests]),
            touched: touched.length,
          });
        }
        const [first, second] = runs;
        expect(second, task.id).toEqual(first);
        const visible = first!.output.trim() !== '' || first!.touched > 0;
        expect(visible, `${task.id} prints nothing and changes nothing`).toBe(true);
      }
    } finally {
      await sandbox.close();
    }
  });
});
