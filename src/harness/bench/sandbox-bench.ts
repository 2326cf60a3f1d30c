import type { SandboxProvider, SandboxSpec } from '../../sandbox/sandbox.js';
import { type BenchFigure, figure } from './bench-figure.js';

export interface SandboxBenchOptions {
  /** Samples for the slow figures (create, reset, exec); round trips take ten times as many. */
  readonly samples: number;
  /** Sandboxes started at once for the concurrency figure. */
  readonly concurrent: number;
  /** Idle sandboxes whose memory is measured. */
  readonly idle: number;
  /** Spec of every sandbox created (the image, for instance). */
  readonly spec?: SandboxSpec;
  readonly onProgress?: (message: string) => void;
}

const MiB = 1024 * 1024;

async function time(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

/** Sandbox-level figures of one backend: create, round trips, exec, reset, idle memory, concurrency. */
export async function runSandboxBench(
  provider: SandboxProvider,
  options: SandboxBenchOptions,
): Promise<BenchFigure[]> {
  const image = options.spec?.image;
  const backend = image && image !== 'host' ? `${provider.id} (${image})` : provider.id;
  const group = 'sandbox';
  const progress = options.onProgress ?? (() => {});
  const figures: BenchFigure[] = [];

  // Warm-up: the first sandbox pays for the helper and the image.
  const sandbox = await provider.create(options.spec);
  await sandbox.session().run('true');

  progress('sandbox create');
  const create: number[] = [];
  for (let i = 0; i < options.samples; i += 1) {
    let created: Awaited<ReturnType<SandboxProvider['create']>> | undefined;
    create.push(
      await time(async () => {
        created = await provider.create(options.spec);
      }),
    );
    await created?.close();
  }
  figures.push(
    figure(
      {
        backend,
        group,
        name: 'create (shell ready)',
        unit: 'ms',
        target: { op: '<=', value: 40, stat: 'p50' },
      },
      create,
    ),
  );

  const session = sandbox.session();
  for (const [name, command, target] of [
    ['session round trip: true', 'true', 2],
    ['session round trip: echo', 'echo hello', undefined],
  ] as const) {
    progress(name);
    const samples: number[] = [];
    for (let i = 0; i < options.samples * 10; i += 1) samples.push(await time(() => session.run(command)));
    figures.push(
      figure(
        {
          backend,
          group,
          name,
          unit: 'ms',
          ...(target ? { target: { op: '<=' as const, value: target, stat: 'p50' as const } } : {}),
        },
        samples,
      ),
    );
  }

  progress('exec');
  const exec: number[] = [];
  for (let i = 0; i < options.samples; i += 1) exec.push(await time(() => sandbox.exec('true')));
  figures.push(figure({ backend, group, name: 'exec: true (fresh process tree)', unit: 'ms' }, exec));

  /** A reset's time after each run of `episode`, as many times as the samples ask. */
  const resetsAfter = async (episode: string): Promise<number[]> => {
    const samples: number[] = [];
    for (let i = 0; i < options.samples; i += 1) {
      await session.run(episode);
      samples.push(await time(() => sandbox.reset()));
    }
    return samples;
  };
  progress('reset');
  figures.push(
    figure(
      {
        backend,
        group,
        name: 'reset (changes dropped, shell ready)',
        unit: 'ms',
        target: { op: '<=', value: 30, stat: 'p50' },
      },
      await resetsAfter('mkdir -p /work && echo data > /work/f && rm -f /etc/hostname && sleep 60 &'),
    ),
  );
  // An episode that leaves what a sandbox cannot be renewed around (a System V IPC object): on bwrap
  // the reset then starts a new process tree, the cost every reset had before resets in place.
  progress('reset after an IPC object');
  figures.push(
    figure(
      { backend, group, name: 'reset after an episode left an IPC object (new process tree)', unit: 'ms' },
      await resetsAfter('echo data > /tmp/f && ipcmk -M 4096 > /dev/null'),
    ),
  );
  await sandbox.close();

  progress('idle memory');
  const idle = await Promise.all(Array.from({ length: options.idle }, () => provider.create(options.spec)));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const memory: number[] = [];
  const resident: number[] = [];
  for (const box of idle) {
    const stats = await box.stats();
    memory.push(stats.memoryBytes / MiB);
    resident.push(stats.rssBytes / MiB);
  }
  await Promise.all(idle.map((box) => box.close()));
  figures.push(
    figure(
      {
        backend,
        group,
        name: 'memory per idle sandbox (PSS, with shell)',
        unit: 'MiB',
        target: { op: '<=', value: 6, stat: 'max' },
      },
      memory,
    ),
  );
  figures.push(
    figure(
      { backend, group, name: 'memory per idle sandbox (RSS, shared pages counted fully)', unit: 'MiB' },
      resident,
    ),
  );

  progress(`${options.concurrent} concurrent sandboxes`);
  let failures = 0;
  const wall = await time(async () => {
    await Promise.all(
      Array.from({ length: options.concurrent }, async (_, index) => {
        try {
          const box = await provider.create(options.spec);
          try {
            const result = await box.session().run(`echo $((${index} * ${index}))`);
            if (result.exitCode !== 0 || result.output.trim() !== String(index * index)) failures += 1;
          } finally {
            await box.close();
          }
        } catch {
          failures += 1;
        }
      }),
    );
  });
  figures.push(
    figure(
      {
        backend,
        group,
        name: `${options.concurrent} concurrent sandboxes: failures`,
        unit: 'count',
        target: { op: '<=', value: 0, stat: 'max' },
      },
      [failures],
    ),
  );
  figures.push(
    figure({ backend, group, name: `${options.concurrent} concurrent sandboxes: wall time`, unit: 'ms' }, [
      wall,
    ]),
  );
  return figures;
}
