/**
 * The evaluation sandbox's kept worker (python-kept-worker.py), in a real bwrap sandbox: a gold or judge
 * run that ends cleanly leaves its worker for the next one, with new globals; a run that changes its
 * process beyond its globals, leaves a thread, a child or a descriptor, or reaches its time limit, ends
 * it, and the next run finds a fresh worker's state. A driver without the keep ends every such worker.
 */
import { afterAll, describe, expect } from 'vitest';
import type { CodeResult } from '../../../src/envs/python/driver-messages.js';
import { PythonInterpreter } from '../../../src/envs/python/python-interpreter.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';
import { suiteSandbox } from '../../support/suite-sandbox.js';

const noBwrap = await bwrapMissing();
const interpreters: PythonInterpreter[] = [];

afterAll(() => {
  for (const interpreter of interpreters) interpreter.close();
});

/** What a fresh worker shows of its process: what the runs below change. */
const FINGERPRINT = [
  'import os, sys, signal, builtins, threading, decimal, gc, atexit, resource, math',
  'mask = os.umask(0); os.umask(mask)',
  'print(os.getcwd(), mask, os.environ.get("KEPT"), sys.getrecursionlimit(), signal.getsignal(signal.SIGUSR1),',
  '      hasattr(builtins, "KEPT"), type(math).__name__, hasattr(math, "sqrt"), threading.active_count(),',
  '      decimal.getcontext().prec, gc.isenabled(), sys.gettrace(), atexit._ncallbacks(),',
  '      resource.getrlimit(resource.RLIMIT_NOFILE), len(os.listdir("/proc/self/fd")),',
  '      open("/proc/self/task/%d/children" % os.getpid()).read() == "")',
].join('\n');

/** Each changes the worker's process beyond its globals (and leaves it at that). */
const CHANGES: Readonly<Record<string, string>> = {
  'working directory': 'import os\nos.chdir("/tmp")',
  umask: 'import os\nos.umask(0o077)',
  environment: 'import os\nos.environ["KEPT"] = "1"',
  'recursion limit': 'import sys\nsys.setrecursionlimit(321)',
  'signal handler': 'import signal\nsignal.signal(signal.SIGUSR1, lambda *args: None)',
  'a new builtin': 'import builtins\nbuiltins.KEPT = 1',
  'a loaded module replaced': 'import sys\nsys.modules["math"] = type(sys)("math")',
  'a thread left running':
    'import threading, time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()',
  'a child left running': 'import subprocess\nsubprocess.Popen(["/bin/sleep", "30"])',
  'a descriptor left open': 'import os\nos.open("/dev/null", os.O_RDONLY)',
  'decimal context': 'import decimal\ndecimal.getcontext().prec = 5',
  'collector off': 'import gc\ngc.disable()',
  'a trace function': 'import sys\nsys.settrace(lambda *args: None)',
  'an exit handler': 'import atexit\natexit.register(print)',
  'a resource limit': 'import resource\nresource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))',
};

function driver(sandbox: () => Parameters<typeof PythonInterpreter.start>[0], keep: boolean) {
  let started: Promise<PythonInterpreter> | undefined;
  const interpreter = () => {
    started ??= PythonInterpreter.start(sandbox(), { memoryBytes: 2 ** 31, warm: true, keep }).then(
      (value) => {
        interpreters.push(value);
        return value;
      },
    );
    return started;
  };
  const fresh = async (code: string, timeoutMs = 10_000): Promise<CodeResult> => {
    const reply = await (await interpreter()).run('fresh', [code], {
      wrap: false,
      timeoutMs,
      maxOutputBytes: 100_000,
    });
    return reply.results[0]!;
  };
  const pid = async () => (await fresh('import os\nprint(os.getpid())')).output;
  return { interpreter, fresh, pid };
}

describe('the kept worker of a gold or judge run', () => {
  const sandbox = suiteSandbox({ label: 'python-kept-worker' });
  const { interpreter, fresh, pid } = driver(sandbox, true);

  it('serves the next run after a clean one, with new globals', async ({ needs }) => {
    needs(noBwrap);
    const first = await pid();
    expect(await fresh('x = 41\nprint(x + 1)')).toMatchObject({ ok: true, output: '42' });
    expect(await fresh('print(x)')).toMatchObject({ ok: false, error: "Error: name 'x' is not defined" });
    // A failing assertion is a clean end too: only the run's own outcome.
    expect((await fresh('assert 1 == 2')).ok).toBe(false);
    expect(await pid()).toBe(first);
    // The pool reports it beside the spare: two idle workers, some MiB of their own.
    const pool = await (await interpreter()).pool();
    expect(pool.limit).toBe(2);
    expect(pool.idle).toBeGreaterThanOrEqual(1);
    expect(pool.memoryBytes).toBeGreaterThan(1024 * 1024);
  });

  it('ends a worker whose run changed its process, and the next run finds a fresh state', async ({
    needs,
  }) => {
    needs(noBwrap);
    const clean = (await fresh(FINGERPRINT)).output;
    expect(clean).toMatch(/^\/ /);
    for (const [change, code] of Object.entries(CHANGES)) {
      const before = await pid();
      const changed = await fresh(code);
      expect(changed.ok, `${change}: ${changed.error}`).toBe(true);
      const after = await pid();
      expect(after, change).not.toBe(before);
      expect((await fresh(FINGERPRINT)).output, change).toBe(clean);
    }
  });

  it('ends a worker whose run reached its time limit', async ({ needs }) => {
    needs(noBwrap);
    const before = await pid();
    const result = await fresh('while True:\n    pass', 300);
    expect(result.timed_out).toBe(true);
    expect(await pid()).not.toBe(before);
  });

  it("gives a judge's undefined names to the agent unless a module of the worker's first run has them", async ({
    needs,
  }) => {
    needs(noBwrap);
    // `wave` is no module the driver loads: once a gold run imported it, a fresh worker would still
    // not know it, so neither does a judge in the kept worker.
    await fresh('import wave');
    const judged = await (await interpreter()).run('judge', ['print(repr(wave), type(math).__name__)'], {
      wrap: false,
      timeoutMs: 10_000,
      maxOutputBytes: 10_000,
      onCall: async () => ({ exc: 'Error: no call expected', out: '', err: '' }),
    });
    expect(judged.results[0]).toMatchObject({ ok: true, output: '<function wave> module' });
  });
});

describe('a driver that keeps no worker', () => {
  const sandbox = suiteSandbox({ label: 'python-no-kept-worker' });
  const { interpreter, pid } = driver(sandbox, false);

  it('ends the worker of every gold or judge run', async ({ needs }) => {
    needs(noBwrap);
    const first = await pid();
    expect(await pid()).not.toBe(first);
    expect((await (await interpreter()).pool()).limit).toBe(1);
  });
});
