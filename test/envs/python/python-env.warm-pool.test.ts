import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import type { WarmPoolStats } from '../../../src/core/env.js';
import type { PythonEnv } from '../../../src/envs/python/python-env.js';
import { it } from '../../support/fixtures.js';
import { pythonEnvSuite } from './python-env-suite.js';

// The Python env's warm pool (docs/architecture/warm-pools.md) in real bwrap sandboxes: each driver
// keeps one spare worker, forked and warmed while it is idle, that the next fresh worker comes from.
const suite = await pythonEnvSuite({ actionTimeoutMs: 3000 });
const { noBwrap } = suite;
const pythonEnv = suite.env;

async function out(env: PythonEnv, code: string): Promise<string> {
  return (await env.step(code)).observation.text;
}

/** The pool's figures once `idle` spares are ready (the drivers fork them while nothing is asked). */
async function poolWith(env: PythonEnv, idle: number): Promise<WarmPoolStats> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const pool = await env.warmPool();
    if (pool.idle === idle) return pool;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the warm pool never held ${idle} idle workers`);
}

/** Pids of the sandbox's processes but pid 1, as the episode sees them, and its own. */
const PROCESSES =
  'import os, json\nprint(json.dumps([os.getpid(), os.getppid(), sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and p != "1")]))';

async function processes(env: PythonEnv): Promise<{ me: number; driver: number; all: number[] }> {
  const [me, driver, all] = JSON.parse(await out(env, PROCESSES)) as [number, number, number[]];
  return { me, driver, all };
}

/** The one process of the sandbox besides the driver and the episode's worker: the idle spare. */
async function sparePid(env: PythonEnv): Promise<number> {
  const { me, driver, all } = await processes(env);
  const others = all.filter((pid) => pid !== me && pid !== driver);
  expect(others).toHaveLength(1);
  return others[0]!;
}

/** What a worker's state looks like from inside: what a new episode must find as the first one did. */
const FINGERPRINT = [
  'import os, sys, json, resource, builtins, math, signal',
  'print(json.dumps({',
  "    'globals': sorted(k for k in globals() if not k.startswith('__') and k not in ('os', 'sys', 'json', 'resource', 'builtins', 'math', 'signal')),",
  "    'modules': len(sys.modules), 'env': sorted(os.environ.items()), 'cwd': os.getcwd(),",
  "    'fds': sorted(os.listdir('/proc/self/fd')), 'abs': abs(-2), 'pi': math.pi, 'argv': sys.argv[1:],",
  "    'builtins': sorted(vars(builtins)),",
  "    'nice': os.getpriority(os.PRIO_PROCESS, 0), 'nofile': resource.getrlimit(resource.RLIMIT_NOFILE),",
  "    'as': resource.getrlimit(resource.RLIMIT_AS), 'affinity': sorted(os.sched_getaffinity(0)),",
  "    'sigint': str(signal.getsignal(signal.SIGINT)), 'stdout': type(sys.stdout).__name__,",
  "    'dumpable': os.stat('/proc/self/mem').st_uid == os.getuid(),",
  "    'files': sorted(n for d in ('/tmp', '/dev/shm', '/var/tmp') for n in os.listdir(d)),",
  '}, sort_keys=True))',
].join('\n');

describe('the Python warm pool', () => {
  it('keeps one spare per driver, reports it, and a new episode runs in the spare', async ({ needs }) => {
    needs(noBwrap);
    const env = pythonEnv();
    await env.reset({ taskId: 'digit-product' });
    // The first episode's worker comes at its first step (the spare forked at the driver's start).
    expect(await out(env, '6 * 7')).toBe('42');
    const pool = await poolWith(env, 3);
    expect(pool.limit).toBe(3);
    // Three idle interpreters (a spare in the agent's and the evaluation sandbox, and the evaluation
    // sandbox's worker kept from the gold's run): some MiB of their own each.
    expect(pool.memoryBytes).toBeGreaterThan(2 * 1024 * 1024);
    expect(pool.memoryBytes).toBeLessThan(256 * 1024 * 1024);
    const spare = await sparePid(env);
    const first = await out(env, FINGERPRINT);
    await env.reset({ taskId: 'digit-product' });
    expect((await processes(env)).me).toBe(spare);
    // The spare, once taken, is the worker a reset would have forked: same state, seen from inside.
    expect(await out(env, FINGERPRINT)).toBe(first);
    expect(JSON.parse(first).files).toEqual([]);
  });

  it('a hostile episode leaves nothing to the next, nor to the spare that waited beside it', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = pythonEnv();
    await env.reset({ taskId: 'digit-product' });
    const first = await out(env, FINGERPRINT);
    // Each attack once with the spare idle beside it; the next episode must look like the first.
    const attacks = [
      // Files everywhere, background processes (one in the spare's own process group), the environment,
      // the working folder, builtins and modules.
      [
        'import os, subprocess, builtins, math, sys',
        "for d in ('/tmp', '/dev/shm', '/var/tmp'):",
        "    open(os.path.join(d, 'left-over'), 'w').write('x')",
        "subprocess.Popen(['sleep', '600'], start_new_session=True)",
        "subprocess.Popen(['sleep', '601'], preexec_fn=lambda: os.setpgid(0, SPARE))",
        "os.environ['LEFT_OVER'] = '1'",
        "os.chdir('/tmp')",
        'builtins.abs = lambda value: 42',
        'builtins.left_over = 1',
        'math.pi = 3',
        "sys.argv.append('left-over')",
        'print("done")',
      ].join('\n'),
      // What a process of the same user can change in another one without ptrace.
      'import os\nos.setpriority(os.PRIO_PROCESS, SPARE, 10)\nprint("done")',
      'import resource\nresource.prlimit(SPARE, resource.RLIMIT_NOFILE, (64, 64))\nprint("done")',
      'import os\nos.sched_setaffinity(SPARE, {min(os.sched_getaffinity(0))})\nprint("done")',
      'import os, signal\nos.kill(SPARE, signal.SIGSTOP)\nprint("done")',
      'import os, signal\nos.kill(SPARE, signal.SIGKILL)\nprint("done")',
      // What it cannot: its memory (it is not dumpable until taken).
      "import os\ntry:\n    open('/proc/%d/mem' % SPARE, 'r+b')\n    print('opened')\nexcept OSError:\n    print('done')",
    ];
    for (const attack of attacks) {
      await poolWith(env, 3);
      const spare = await sparePid(env);
      expect(await out(env, `SPARE = ${spare}\n${attack}`)).toBe('done');
      await env.reset({ taskId: 'digit-product' });
      expect(await out(env, FINGERPRINT)).toBe(first);
      const sleeping =
        "import os\nprint(any(open('/proc/%s/cmdline' % p, 'rb').read().startswith(b'sleep') for p in os.listdir('/proc') if p.isdigit()))";
      expect(await out(env, sleeping)).toBe('False');
      expect(await out(env, 'SPARE')).toBe("Error: name 'SPARE' is not defined");
    }
  });

  it('scores as before with the pool on and off', async ({ needs }) => {
    needs(noBwrap);
    for (const warm of [true, false]) {
      const env = pythonEnv({ warm });
      for (let episode = 0; episode < 3; episode += 1) {
        await env.reset({ taskId: 'digit-product' });
        await env.step('def digit_product(n):\n    import math\n    return math.prod(map(int, str(n)))');
        expect((await env.step('submit digit_product')).reward).toBe(1);
      }
    }
  });

  it('is off with warm: false or INTERCODE_WARM_POOL=off: no spare, nothing reported', async ({
    needs,
    setEnv,
  }) => {
    needs(noBwrap);
    const off = pythonEnv({ warm: false });
    await off.reset({ taskId: 'digit-product' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await off.warmPool()).toEqual({ idle: 0, memoryBytes: 0, limit: 0 });
    const { me, driver, all } = await processes(off);
    expect(all.sort()).toEqual([driver, me].sort());
    setEnv('INTERCODE_WARM_POOL', 'off');
    const byVariable = pythonEnv();
    await byVariable.reset({ taskId: 'digit-product' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await byVariable.warmPool()).toEqual({ idle: 0, memoryBytes: 0, limit: 0 });
    const seen = await processes(byVariable);
    expect(seen.all).toHaveLength(2);
  });

  it('close() leaves no process behind, spares included', async ({ needs }) => {
    needs(noBwrap);
    // The envs of the tests above first: only this one's processes are alive below this process.
    await suite.closeAll();
    const before = new Set(pythonsBelow(process.pid));
    const env = pythonEnv();
    await env.reset({ taskId: 'digit-product' });
    await env.step('6 * 7');
    await poolWith(env, 3);
    const started = pythonsBelow(process.pid).filter((pid) => !before.has(pid));
    // Two drivers, the agent's worker, two spares, the worker kept from the gold's run.
    expect(started.length).toBeGreaterThanOrEqual(6);
    await env.close();
    expect(started.filter((pid) => alive(pid))).toEqual([]);
    expect(await env.warmPool()).toEqual({ idle: 0, memoryBytes: 0, limit: 3 });
  });
});

/** Host pids of the Python processes below process `root`. */
function pythonsBelow(root: number): number[] {
  const parents = new Map<number, number>();
  const pythons = new Set<number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(name), Number(fields[1]));
      if (stat.includes('(python3')) pythons.add(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  const below = (pid: number): boolean => {
    for (let up = parents.get(pid); up !== undefined && up > 1; up = parents.get(up)) {
      if (up === root) return true;
    }
    return false;
  };
  return [...pythons].filter(below);
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\S+ \(.*\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}
