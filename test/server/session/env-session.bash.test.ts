import { afterEach, describe, expect } from 'vitest';
import { DEMO_BASH_TASKS } from '../../../src/datasets/demo/demo-bash-tasks.js';
import { liveSandboxCount } from '../../../src/server/app/live-sandboxes.js';
import { SessionError } from '../../../src/server/session/session-error.js';
import type { SessionHost } from '../../../src/server/session/session-host.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';
import { makeHost } from './session-host-fixture.js';

// EnvSession on demo/bash in real bubblewrap sandboxes.

const noBwrap = await bwrapMissing();
let host: SessionHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('EnvSession on demo/bash (bwrap)', () => {
  it('plays gold episodes and reaps its sandboxes on close', async ({ cache, mirror, needs }) => {
    needs(noBwrap);
    expect(cache && mirror).toBeTruthy();
    const baseline = liveSandboxCount();
    host = makeHost({ dataset: 'demo/bash' });
    const session = host.sessions.open();
    for (const index of [0, 1, 2]) {
      const task = DEMO_BASH_TASKS[index]!;
      const reset = await session.reset({ index });
      expect(reset.info).toMatchObject({ dataset: 'demo/bash', task_id: task.id, index });
      const step = await session.step({ code: task.gold });
      expect(step.observation).toMatchObject({ exit_code: 0, timed_out: false, turn: 1 });
      const submit = await session.step({ code: 'submit' });
      expect(submit).toMatchObject({ reward: 1, done: true, terminated: true });
    }
    expect(liveSandboxCount()).toBeGreaterThan(baseline);
    await host.sessions.close(session.id);
    expect(liveSandboxCount()).toBe(baseline);
  });

  it('discards the env of a step past its deadline; the next reset works on a new one', async ({
    cache,
    mirror,
    needs,
  }) => {
    needs(noBwrap);
    expect(cache && mirror).toBeTruthy();
    const baseline = liveSandboxCount();
    host = makeHost({ dataset: 'demo/bash', stepTimeoutMs: 8_000 });
    const session = host.sessions.open();
    await session.reset({});
    const error = await session
      .step({ code: 'sleep 30' }, { timeoutMs: 1000 })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SessionError);
    expect((error as SessionError).code).toBe('STEP_TIMEOUT');
    expect(session.state()).toMatchObject({ episode_id: null, step_count: 0 });
    await expect(session.step({ code: 'true' })).rejects.toMatchObject({ code: 'NOT_RESET' });
    const task = DEMO_BASH_TASKS[0]!;
    await session.reset({ index: 0 });
    await session.step({ code: task.gold });
    expect((await session.step({ code: 'submit' })).reward).toBe(1);
    await host.close();
    host = undefined;
    expect(liveSandboxCount()).toBe(baseline);
  });
});
