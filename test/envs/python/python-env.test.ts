import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect } from 'vitest';
import type { StepResult } from '../../../src/core/env.js';
import type { Dataset, Task } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { PythonEnv, type PythonEnvOptions } from '../../../src/envs/python/python-env.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { LoopbackServer } from '../../../src/testkit/loopback-server.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';
import { PROJECT_ROOT } from '../../support/project.js';

// The Python env on demo/python in real bwrap sandboxes (skipped where bwrap cannot run).
const provider = new BwrapProvider();
const envs: PythonEnv[] = [];
const noBwrap = await bwrapMissing();
let dataset: Dataset;
let shared: PythonEnv;

function pythonEnv(options: Partial<PythonEnvOptions> = {}): PythonEnv {
  const env = new PythonEnv({ dataset, provider, actionTimeoutMs: 2000, ...options });
  envs.push(env);
  return env;
}

function task(id: string): Task {
  const found = dataset.tasks.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no demo task ${id}`);
  return found;
}

const text = (step: StepResult) => step.observation.text;

function hostCanFork(): boolean {
  return spawnSync('/bin/sh', ['-c', 'exit 0']).status === 0;
}

// The file's own cache (INTERCODE_CACHE_DIR) for everything below.
it.beforeAll(async ({ cache: _cache }) => {
  dataset = await resolveDataset('demo/python');
  if (!noBwrap) {
    shared = pythonEnv();
    await shared.reset({ taskId: 'digit-product' });
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(envs.map((env) => env.close()));
  await provider.close();
});

describe('PythonEnv actions (upstream rule: print the value of an expression)', () => {
  it('prints expressions and leaves assignments, imports, print calls, asserts and defs alone', async ({
    needs,
  }) => {
    needs(noBwrap);
    await shared.reset({ taskId: 'digit-product' });
    expect(text(await shared.step('1 + 1'))).toBe('2');
    expect(text(await shared.step('x = 21'))).toBe('');
    expect(text(await shared.step('x * 2'))).toBe('42');
    expect(text(await shared.step('import math'))).toBe('');
    expect(text(await shared.step('print("a"); print("b")'))).toBe('a\nb');
    expect(text(await shared.step('assert x == 21'))).toBe('');
    const def = await shared.step('def twice(v):\n    return 2 * v');
    expect(def).toMatchObject({
      observation: { text: '' },
      reward: 0,
      terminated: false,
      info: { admissible: true },
    });
    expect(text(await shared.step('twice(4)'))).toBe('8');
    expect(text(await shared.step("'  padded  '"))).toBe('padded'); // output is stripped, as upstream
    expect(text(await shared.step('None'))).toBe('None');
  });

  it('wraps what upstream wrapped even when that breaks it (from-import, for, augmented assignment)', async ({
    needs,
  }) => {
    needs(noBwrap);
    await shared.reset({ taskId: 'digit-product' });
    for (const action of ['from os import path', 'for i in range(3): i', 'x += 1']) {
      const step = await shared.step(action);
      expect(text(step)).toMatch(/^Error: /);
      expect(step.info.admissible).toBe(false);
    }
  });

  it('reports an action the rule cannot parse as upstream did ("Error executing action")', async ({
    needs,
  }) => {
    needs(noBwrap);
    const step = await shared.step('x = (');
    expect(text(step)).toMatch(/^Error executing action: /);
    expect(step.info).toMatchObject({ admissible: false, output: null });
  });

  it('returns an exception as `Error: <message>` without the output, stderr beside stdout otherwise', async ({
    needs,
  }) => {
    needs(noBwrap);
    expect(text(await shared.step('print("lost"); 1 / 0'))).toBe('Error: division by zero');
    expect(text(await shared.step('undefined_name'))).toBe("Error: name 'undefined_name' is not defined");
    const warned = await shared.step('import sys\nprint("out"); print("err", file=sys.stderr)');
    expect(text(warned)).toBe('out\nerr');
    expect(warned.info).toMatchObject({ admissible: false, output: 'out', error: 'err' });
  });
});

describe('PythonEnv protocol robustness: every case gives an observation and the env goes on', () => {
  it('is not confused by printed fake frames, writes to fd 1 and 2, or a replaced or closed sys.stdout', async ({
    needs,
  }) => {
    needs(noBwrap);
    await shared.reset({ taskId: 'digit-product' });
    await shared.step('keep = "state"');
    const fake = '0123456789abcdef0123456789abcdef 17\n{"results": []}';
    expect(text(await shared.step(`print(${JSON.stringify(fake)})`))).toBe(fake.trim());
    expect(text(await shared.step('import os\nos.write(1, b"raw one\\n"); os.write(2, b"raw two\\n")'))).toBe(
      'raw one\nraw two',
    );
    expect(text(await shared.step('import sys\nsys.__stdout__.write("dunder\\n")'))).toBe('dunder');
    expect(text(await shared.step('sys.stdout.close()'))).toBe('Error: I/O operation on closed file.');
    expect(text(await shared.step('sys.stdout = None'))).toBe('');
    expect(text(await shared.step('import os\nos.close(1); os.close(2); os.close(0)'))).toBe('');
    expect(text(await shared.step('keep'))).toBe('state');
  });

  it('restarts the interpreter after os._exit, a lost control channel or a crash, and says so', async ({
    needs,
  }) => {
    needs(noBwrap);
    for (const action of [
      'import os\nos._exit(3)',
      'import os\nos.closerange(3, 1100)',
      'import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)',
      // The driver itself: the host starts a new interpreter process.
      'import os, signal\nos.kill(os.getppid(), signal.SIGKILL)',
    ]) {
      await shared.reset({ taskId: 'digit-product' });
      await shared.step('keep = 1');
      const step = await shared.step(action);
      expect(text(step)).toContain('the interpreter was restarted');
      expect(step.info).toMatchObject({ admissible: false, sessionRestarted: true });
      expect(text(await shared.step('keep'))).toBe("Error: name 'keep' is not defined");
      expect(text(await shared.step('6 * 7'))).toBe('42');
    }
  });

  it('keeps the state after sys.exit(), a RecursionError and a 2 GiB allocation', async ({ needs }) => {
    needs(noBwrap);
    await shared.reset({ taskId: 'digit-product' });
    await shared.step('keep = 5');
    expect(text(await shared.step('import sys\nsys.exit(3)'))).toBe('Error: SystemExit: 3');
    expect(text(await shared.step('def down(n):\n    return down(n + 1)'))).toBe('');
    expect(text(await shared.step('down(0)'))).toBe('Error: maximum recursion depth exceeded');
    const big = await shared.step('blob = bytearray(2 * 1024 ** 3)');
    expect(text(big)).toMatch(/^Error: /);
    expect(big.info.admissible).toBe(false);
    expect(text(await shared.step('keep'))).toBe('5');
  });

  it('interrupts an endless loop at the time limit and keeps the state', async ({ needs }) => {
    needs(noBwrap);
    await shared.reset({ taskId: 'digit-product' });
    await shared.step('keep = 7');
    const step = await shared.step('while True:\n    spin = 1');
    expect(step.observation.timedOut).toBe(true);
    expect(text(step)).toContain('timed out after 2 s');
    expect(step.info.admissible).toBe(false);
    expect(text(await shared.step('keep'))).toBe('7');
  });

  it('kills and restarts an interpreter that ignores the interrupt', async ({ needs }) => {
    needs(noBwrap);
    await shared.reset({ taskId: 'digit-product' });
    await shared.step('keep = 7');
    const step = await shared.step(
      'while True:\n    try:\n        while True:\n            spin = 1\n    except BaseException:\n        spin = 2',
    );
    expect(step.observation.timedOut).toBe(true);
    expect(text(step)).toContain('timed out');
    expect(text(step)).toContain('the interpreter was restarted');
    expect(text(await shared.step('keep'))).toBe("Error: name 'keep' is not defined");
  });

  it('caps huge output (head and tail kept) and marks it truncated', async ({ needs }) => {
    needs(noBwrap);
    const env = pythonEnv({ maxOutputBytes: 1000 });
    await env.reset({ taskId: 'digit-product' });
    const step = await env.step('print("a" * 3_000_000 + "END")');
    expect(step.observation.truncated).toEqual({ originalBytes: 3_000_004 });
    expect(text(step)).toMatch(
      /^a{500}\n\[\.\.\. \d+ bytes of output omitted: 3000004 bytes in total \.\.\.\]\na+END$/,
    );
    expect(text(await env.step('1 + 2'))).toBe('3');
  });
});

describe('PythonEnv containment of hostile code', () => {
  it('contains a fork bomb: an observation, the host can fork, the env goes on', async ({ needs }) => {
    needs(noBwrap);
    await shared.reset({ taskId: 'digit-product' });
    const step = await shared.step(
      'import os\nwhile True:\n    try:\n        os.fork()\n    except Exception:\n        pass',
    );
    expect(step.observation.timedOut).toBe(true);
    expect(hostCanFork()).toBe(true);
    expect(text(await shared.step('print("alive")'))).toBe('alive');
    // The bomb's survivors were swept after the interrupt, before the next action.
    expect(
      text(await shared.step('import os\nprint(len([p for p in os.listdir("/proc") if p.isdigit()]) < 10)')),
    ).toBe('True');
    await shared.reset({ taskId: 'digit-product' });
    expect(
      text(await shared.step('import os\nprint(len([p for p in os.listdir("/proc") if p.isdigit()]) < 10)')),
    ).toBe('True');
  }, 30_000);

  it('contains shutil.rmtree("/"): the host is untouched and the next episode has its files back', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = pythonEnv({ actionTimeoutMs: 10_000 });
    await env.reset({ taskId: 'digit-product' });
    const before = readFileSync(`${PROJECT_ROOT}/package.json`, 'utf8');
    const step = await env.step('import shutil\nshutil.rmtree("/")');
    expect(text(step)).toMatch(/Error/);
    expect(readFileSync(`${PROJECT_ROOT}/package.json`, 'utf8')).toBe(before);
    expect(existsSync('/usr/bin/python3')).toBe(true);
    expect(text(await env.step('print("alive")'))).toBe('alive');
    await env.reset({ taskId: 'digit-product' });
    expect(text(await env.step('import os\nprint(os.path.isdir("/tmp") and os.path.isdir("/root"))'))).toBe(
      'True',
    );
    const gold = await env.step(task('digit-product').gold as string);
    expect(gold.info.admissible).toBe(true);
    expect((await env.step('submit digit_product')).reward).toBe(1);
  }, 60_000);

  it('cannot reach a server on the host loopback', async ({ needs }) => {
    needs(noBwrap);
    const server = await LoopbackServer.start();
    try {
      const step = await shared.step(
        `import socket\nsocket.create_connection(("127.0.0.1", ${server.port}), timeout=1).recv(100)`,
      );
      expect(text(step)).toMatch(/^Error: /);
      expect(server.connections).toBe(0);
      expect(await server.connectFromHost()).toContain('hello from the host');
    } finally {
      await server.close();
    }
  });

  it('cannot read /etc/shadow or the project directory', async ({ needs }) => {
    needs(noBwrap);
    for (const path of ['/etc/shadow', `${PROJECT_ROOT}/package.json`]) {
      const step = await shared.step(`print(open(${JSON.stringify(path)}).read())`);
      expect(text(step)).toMatch(/^Error: \[Errno 2\] No such file or directory/);
    }
  });

  it('starts every episode with fresh globals and no process left from the previous one', async ({
    needs,
  }) => {
    needs(noBwrap);
    await shared.reset({ taskId: 'digit-product' });
    await shared.step(
      'import subprocess\nleft = subprocess.Popen(["sleep", "1000"], start_new_session=True).pid',
    );
    await shared.step('keep = 1');
    await shared.reset({ taskId: 'digit-product' });
    expect(text(await shared.step('keep'))).toBe("Error: name 'keep' is not defined");
    // Pid 1, the driver, this worker, and the driver's idle spare when it has forked it by now (the
    // warm pool, docs/architecture/warm-pools.md).
    expect(
      text(await shared.step('import os\nprint(sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))')),
    ).toMatch(/^\[1, \d+, \d+(, \d+)?\]$/);
  });
});

describe('PythonEnv reward (MBPP semantics)', () => {
  it('scores the gold 1.0 on submit, with per-test agreement and pass details', async ({ needs }) => {
    needs(noBwrap);
    const env = shared;
    await env.reset({ taskId: 'digit-product' });
    await env.step(task('digit-product').gold as string);
    const submit = await env.step('submit digit_product');
    expect(submit).toMatchObject({ reward: 1, terminated: true });
    expect(text(submit)).toBe(
      'submitted digit_product: 3 of 3 tests agree with the reference solution (3 passed)',
    );
    expect(submit.info.score).toMatchObject({
      value: 1,
      parts: { agreement: 1, passRate: 1, tests: 3 },
      details: { submittedFunction: 'digit_product', referenceFunction: 'digit_product', testsPassed: 3 },
    });
  });

  it('gives the share of agreeing tests: a wrong function 0, a partly right one 1/3', async ({ needs }) => {
    needs(noBwrap);
    await shared.reset({ taskId: 'digit-product' });
    await shared.step('def wrong(n):\n    return -1');
    expect((await shared.score()).value).toBe(0);
    await shared.step('def partly(n):\n    return 7');
    const score = await shared.score();
    expect(score.value).toBeCloseTo(1 / 3, 12);
    expect(score.parts).toMatchObject({ passRate: 1 / 3 });
    const tests = (score.details as { tests: { agrees: boolean; agent: unknown; gold: unknown }[] }).tests;
    expect(tests.map((test) => test.agrees)).toEqual([false, true, false]);
    expect(tests[0]).toMatchObject({
      agent: { output: null, error: 'Error: ' },
      gold: { output: '', error: '' },
    });
  });

  it('binds the gold function name to the submitted function (any name works)', async ({ needs }) => {
    needs(noBwrap);
    await shared.reset({ taskId: 'nth-triangular' });
    await shared.step('def tri(n):\n    return sum(range(n + 1))');
    expect((await shared.step('submit tri')).reward).toBe(1);
  });

  it('runs the setup code before the tests, in a copy that leaves the agent state alone', async ({
    needs,
  }) => {
    needs(noBwrap);
    await shared.reset({ taskId: 'cargo-weight' });
    await shared.step(
      'def weigh(items, category):\n    return sum(i.weight for i in items if i.category == category)',
    );
    expect((await shared.score()).value).toBe(1);
    expect(text(await shared.step('MANIFEST'))).toBe("Error: name 'MANIFEST' is not defined");
    expect(text(await shared.step('cargo_weight'))).toBe("Error: name 'cargo_weight' is not defined");
  });

  it('scores only def actions in Try Again: any other action scores 0', async ({ needs }) => {
    needs(noBwrap);
    await shared.reset({ taskId: 'digit-product' });
    await shared.step(task('digit-product').gold as string);
    expect((await shared.score()).value).toBe(1);
    await shared.step('digit_product(12)');
    expect(await shared.score()).toMatchObject({ value: 0 });
  });

  it('answers a bare submit with reward 0 and a clear observation', async ({ needs }) => {
    needs(noBwrap);
    await shared.reset({ taskId: 'digit-product' });
    const step = await shared.step('submit');
    expect(step).toMatchObject({ reward: 0, terminated: true, info: { admissible: false } });
    expect(text(step)).toContain('submit <function-name>');
  });

  it('reproduces upstream with compat "upstream": after scoring, the gold function is in the agent interpreter', async ({
    needs,
  }) => {
    needs(noBwrap);
    const broken = 'def digit_product(n):\n    return -1\n  oops';
    const fixed = pythonEnv();
    await fixed.reset({ taskId: 'digit-product' });
    await fixed.step('def digit_product(n):\n    return -1');
    expect((await fixed.score()).value).toBe(0);
    expect(text(await fixed.step(broken))).toMatch(/^Error: unindent does not match/);
    expect((await fixed.score()).value).toBe(0);
    const upstream = pythonEnv({ compat: 'upstream' });
    await upstream.reset({ taskId: 'digit-product' });
    await upstream.step('def digit_product(n):\n    return -1');
    expect((await upstream.score()).value).toBe(0);
    expect(text(await upstream.step(broken))).toMatch(/^Error: unindent does not match/);
    expect((await upstream.score()).value).toBe(1);
    expect(text(await upstream.step('digit_product(23)'))).toBe('6');
  });

  it('flags a gold that fails its own tests as corrupt', async ({ needs }) => {
    needs(noBwrap);
    const broken: Dataset = {
      id: 'broken',
      env: 'python',
      assets: {},
      tasks: [
        {
          id: 'b',
          index: 0,
          query: 'q',
          gold: 'def f(x):\n    return x + 1',
          meta: { tests: ['assert f(1) == 2', 'assert f(1) == 3'], test_setup_code: '' },
        },
      ],
    };
    const env = pythonEnv({ dataset: broken });
    await env.reset({ index: 0 });
    await env.step('def g(x):\n    return x + 1');
    const score = await env.score();
    // Agreement still counts: the second test fails on both sides alike.
    expect(score).toMatchObject({ value: 1, goldCorrupt: true });
    expect((score.details as { goldProblem: string }).goldProblem).toContain('test 2');
  });
});
