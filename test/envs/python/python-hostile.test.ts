import { afterAll, describe, expect } from 'vitest';
import type { Dataset } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { PythonEnv, type PythonEnvOptions } from '../../../src/envs/python/python-env.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// Hostile agents against the Python env's reward and episode boundaries (issue 11, classes 3 and 4),
// in real bwrap sandboxes, default (`fixed`) mode. Each case is an attack that scored or leaked on
// the design where the tests ran in a fork of the agent's interpreter under one long-lived driver.
const provider = new BwrapProvider();
const envs: PythonEnv[] = [];
const noBwrap = await bwrapMissing();
let dataset: Dataset;

function pythonEnv(options: Partial<PythonEnvOptions> = {}): PythonEnv {
  const env = new PythonEnv({ dataset, provider, actionTimeoutMs: 3000, ...options });
  envs.push(env);
  return env;
}

it.beforeAll(async ({ cache: _cache }) => {
  dataset = await resolveDataset('demo/python');
}, 60_000);

afterAll(async () => {
  await Promise.all(envs.map((env) => env.close()));
  await provider.close();
});

/** Plays `actions` on digit-product, then submits `name`; the reward. */
async function rewardOf(env: PythonEnv, actions: readonly string[], name = 'digit_product'): Promise<number> {
  await env.reset({ taskId: 'digit-product' });
  for (const action of actions) await env.step(action);
  return (await env.step(`submit ${name}`)).reward;
}

const ALWAYS_EQUAL = [
  [
    'class Anything:',
    '    def __eq__(self, other): return True',
    '    def __ne__(self, other): return False',
    '    def __bool__(self): return True',
    '    def __hash__(self): return 0',
  ].join('\n'),
  'def digit_product(n):\n    return Anything()',
].join('\n');

describe('Python reward hacks (the verdict is not the agent process’s to give)', () => {
  it('an object whose __eq__ is always true scores nothing', async ({ needs }) => {
    needs(noBwrap);
    const env = pythonEnv();
    expect(await rewardOf(env, [ALWAYS_EQUAL])).toBe(0);
    // Subclasses of plain types with a rigged comparison are not plain values either.
    const intSubclass =
      'class Rigged(int):\n    def __eq__(self, other): return True\n    __hash__ = int.__hash__\n' +
      'def digit_product(n):\n    return Rigged(-1)';
    expect(await rewardOf(env, [intSubclass])).toBe(0);
    const listOfRigged = `${ALWAYS_EQUAL.replace('return Anything()', 'return [Anything()]')}`;
    expect(await rewardOf(env, [listOfRigged])).toBe(0);
    // The honest function still scores, and so does one whose result is plain but not a literal type.
    expect(
      await rewardOf(env, ['def digit_product(n):\n    import math\n    return math.prod(map(int, str(n)))']),
    ).toBe(1);
  });

  it('rewriting the driver from inside the interpreter scores nothing', async ({ needs }) => {
    needs(noBwrap);
    const env = pythonEnv();
    // Every function of the program that runs user code made to report success.
    const rewrite = [
      'import sys',
      "main = sys.modules['__main__']",
      'def digit_product(n):\n    pass',
      "for name in ('run_one', 'call_one', 'describe'):",
      '    if hasattr(main, name):',
      '        setattr(main, name, lambda *a, **k: {})',
      "if hasattr(main, 'run_batch'):",
      "    main.run_batch = lambda request, state, send: [send({'k': 'r', 'i': i}) for i, _ in enumerate(request.get('codes', []))] and send({'k': 'end'})",
    ].join('\n');
    expect(await rewardOf(env, [rewrite])).toBe(0);
  });
});

describe('state between episodes (each episode starts from a state no earlier one touched)', () => {
  it('a write into the driver’s memory never reaches a later episode', async ({ needs }) => {
    needs(noBwrap);
    const env = pythonEnv();
    // The workers are forks of the driver: an object of the driver sits at the same address in the
    // worker, so /proc/<driver>/mem (what a debugger uses) can rewrite it in the driver itself.
    const attack = [
      'import os, sys',
      'target = sys.argv[1]',
      'offset = sys.getsizeof("") - 1',
      'try:',
      "    with open('/proc/%d/mem' % os.getppid(), 'r+b', buffering=0) as mem:",
      '        mem.seek(id(target) + offset)',
      "        mem.write(b'X' * 8)",
      "    print('wrote')",
      'except OSError as error:',
      "    print('refused', error.errno)",
    ].join('\n');
    await env.reset({ taskId: 'digit-product' });
    const attempt = (await env.step(attack)).observation.text;
    expect(attempt).toMatch(/^(wrote|refused \d+)$/);
    for (let episode = 0; episode < 3; episode += 1) {
      await env.reset({ taskId: 'digit-product' });
      const seen = (await env.step('import sys\nprint(sys.argv[1][:8])')).observation.text;
      expect(seen).not.toBe('XXXXXXXX');
    }
    // The driver itself cannot be opened for writing (it is not dumpable, the sandbox has no
    // CAP_SYS_PTRACE): not even within the episode.
    expect(attempt).toMatch(/^refused/);
  });

  it('files in /dev/shm, /tmp, /run and /var/tmp do not reach the next episode', async ({ needs }) => {
    needs(noBwrap);
    const env = pythonEnv();
    // Outside the overlay alone first (what a file-system diff cannot see), then everywhere at once.
    for (const places of [['/dev/shm'], ['/dev/shm', '/dev', '/tmp', '/run', '/var/tmp']]) {
      await env.reset({ taskId: 'digit-product' });
      const write = await env.step(
        `import os\nfor d in ${JSON.stringify(places)}:\n    open(os.path.join(d, 'left-over'), 'w').write('x')\nprint('ok')`,
      );
      expect(write.observation.text).toBe('ok');
      for (let episode = 0; episode < 3; episode += 1) {
        await env.reset({ taskId: 'digit-product' });
        const look = await env.step(
          `import os\nprint([d for d in ${JSON.stringify(places)} if os.path.exists(os.path.join(d, 'left-over'))])`,
        );
        expect(look.observation.text).toBe('[]');
      }
    }
  });

  it('a process, System V shared memory or a POSIX message queue left in one episode is gone in the next', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = pythonEnv();
    await env.reset({ taskId: 'digit-product' });
    const plant = [
      'import ctypes, os, subprocess',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'key = 0x1c0de',
      'print(libc.shmget(key, 4096, 0o1666) >= 0)',
      "libc.mq_open(b'/left-over', os.O_CREAT | os.O_RDWR, 0o600, None)",
      "subprocess.Popen(['sleep', '600'], start_new_session=True)",
    ].join('\n');
    expect((await env.step(plant)).observation.text).toBe('True');
    for (let episode = 0; episode < 2; episode += 1) {
      await env.reset({ taskId: 'digit-product' });
      const look = [
        'import ctypes, os',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'print(libc.shmget(0x1c0de, 0, 0) >= 0)',
        "print(libc.mq_open(b'/left-over', os.O_RDWR) >= 0)",
        "print(any(open('/proc/%s/cmdline' % p, 'rb').read().startswith(b'sleep') for p in os.listdir('/proc') if p.isdigit()))",
      ].join('\n');
      expect((await env.step(look)).observation.text).toBe('False\nFalse\nFalse');
    }
  });
});
