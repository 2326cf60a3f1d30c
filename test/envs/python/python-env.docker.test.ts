import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepResult } from '../../../src/core/env.js';
import type { Dataset } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { PythonEnv } from '../../../src/envs/python/python-env.js';
import { DockerProvider } from '../../../src/sandbox/docker/docker-provider.js';
import { ensureDebianImage } from '../../../src/sandbox/index.js';
import { dockerMissing } from '../../support/missing-components.js';
import { describeMissing } from '../../support/skip-if-missing.js';

// The Python env on the docker backend: its driver runs through the docker sandbox's `spawn`, in a
// container whose pid namespace it shares with the supervisors of docker's execs.

const noDocker = await dockerMissing();
const text = (step: StepResult) => step.observation.text;

/** Python code that defines `_left()`: whether a process running `sleep 1000` is in the container. */
const LEFT = `import os
def _left():
    for name in os.listdir('/proc'):
        try:
            if name.isdigit() and b'sleep\\x001000' in open('/proc/%s/cmdline' % name, 'rb').read():
                return True
        except OSError:
            pass
    return False`;

/** Starts `sleep 1000` in a new session, orphaned, and waits until it runs. */
const DETACH = `${LEFT}
import subprocess, time
subprocess.Popen(['bash', '-c', '(sleep 1000 &) ; exit 0'], start_new_session=True).wait()
for _ in range(500):
    if _left():
        break
    time.sleep(0.01)
print(_left())`;

const SLEEPER_LEFT = `${LEFT}\nprint(_left())`;

if (noDocker) {
  describeMissing('PythonEnv on docker', noDocker, 'docker');
} else {
  describe('PythonEnv on docker', () => {
    const provider = new DockerProvider();
    let dataset: Dataset;
    let env: PythonEnv;

    beforeAll(async () => {
      await ensureDebianImage('python');
      dataset = await resolveDataset('demo/python');
      env = new PythonEnv({ dataset, provider, image: 'debian:python', actionTimeoutMs: 3000 });
    }, 900_000);
    afterAll(async () => {
      await env?.close();
      await provider.close();
    });

    it('starts the interpreter again and again in the same container', async () => {
      await env.reset({ taskId: 'digit-product' });
      // Every docker exec uses up several pid numbers of the container: the driver must not care.
      for (let round = 0; round < 15; round += 1) {
        await env.step('keep = 1');
        const step = await env.step('import os, signal\nos.kill(os.getppid(), signal.SIGKILL)');
        expect(text(step)).toContain('the interpreter was restarted');
        expect(text(await env.step('6 * 7'))).toBe('42');
      }
    }, 120_000);

    it('kills what user code left running on reset and on a timeout, even in a new session', async () => {
      await env.reset({ taskId: 'digit-product' });
      expect(text(await env.step(DETACH))).toBe('True');
      await env.reset({ taskId: 'digit-product' });
      expect(text(await env.step(SLEEPER_LEFT))).toBe('False');
      const step = await env.step(`${DETACH}\nwhile True: time.sleep(1)`);
      expect(step.observation.timedOut).toBe(true);
      expect(text(await env.step(SLEEPER_LEFT))).toBe('False');
      expect(text(await env.step('6 * 7'))).toBe('42');
    }, 120_000);

    it('contains a fork bomb: the interpreter goes on and a reset leaves the container clean', async () => {
      await env.reset({ taskId: 'digit-product' });
      const bomb = 'import os\nwhile True:\n    try:\n        os.fork()\n    except Exception:\n        pass';
      expect((await env.step(bomb)).observation.timedOut).toBe(true);
      expect(text(await env.step('print("alive")'))).toBe('alive');
      await env.reset({ taskId: 'digit-product' });
      // The keeper, two supervisors, the shell, the driver and its worker, and this code's process; the
      // bomb's processes are all dead, though the keeper may not have reaped every one yet (zombies).
      const count =
        'import os\ndef live(p):\n    try:\n        return open("/proc/%s/stat" % p).read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")\n    except OSError:\n        return False\n' +
        'print(len([p for p in os.listdir("/proc") if p.isdigit() and live(p)]) < 16)';
      expect(text(await env.step(count))).toBe('True');
    }, 60_000);
  });
}
