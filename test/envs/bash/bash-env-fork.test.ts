/**
 * Branching Bash episodes: `BashEnv.fork(n)` on real bwrap sandboxes gives copies of the episode
 * whose files and shell state are their own (a write or delete in one is in no other), that score
 * as the original does in the same state, survive the original's close, and say what they lack
 * (processes left running).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { Env, StepResult } from '../../../src/core/env.js';
import { currentOwner } from '../../../src/core/host/owner.js';
import { runtimeDir } from '../../../src/core/host/runtime-dir.js';
import { BwrapProvider } from '../../../src/sandbox/bwrap/bwrap-provider.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';
import { useDemoBash } from './demo-bash-fixture.js';

const noBwrap = await bwrapMissing();
const demo = useDemoBash({ warmUp: !noBwrap });
const { at, bashEnv, provider } = demo;

async function forked(source: Env, count: number): Promise<Env[]> {
  const { envs, notCopied } = await source.fork!(count);
  expect(notCopied).toEqual([]);
  expect(envs).toHaveLength(count);
  demo.track(...envs);
  return envs;
}

/** The kept layers of forks (`Sandbox.branch`) made from now on and not yet freed. */
function keptSince(): () => string[] {
  const list = () => {
    const dir = join(runtimeDir(), currentOwner());
    return existsSync(dir) ? readdirSync(dir).filter((name) => name.includes('.kept-')) : [];
  };
  const before = new Set(list());
  return () => list().filter((name) => !before.has(name));
}

/** The output of a command that must succeed. */
async function out(env: Env, command: string): Promise<string> {
  const step: StepResult = await env.step(command);
  expect(step.info.admissible, `${command}: ${step.observation.text}`).toBe(true);
  return step.observation.text;
}

describe('BashEnv.fork on bwrap', () => {
  it('gives copies whose files are their own: writes and deletes stay where they were made', async ({
    needs,
  }) => {
    needs(noBwrap);
    const original = bashEnv();
    await original.reset({ index: at('count-python-files') });
    // A new file, a deleted task file (a whiteout), a task folder replaced by a new one (opaque), a
    // hard link, a symbolic link and a FIFO.
    await out(
      original,
      'echo before > /demo/forked.txt && rm /demo/notes/todo.txt && rm -r /demo/data && mkdir /demo/data && ' +
        'echo new > /demo/data/only.txt && ln /demo/forked.txt /demo/hard.txt && ln -s /demo/forked.txt /demo/soft && ' +
        'mkfifo /demo/fifo',
    );
    const layout =
      'ls -A /demo/data; stat -c "%h %F" /demo/hard.txt /demo/soft /demo/fifo; readlink /demo/soft';
    const expectedLayout = await out(original, layout);
    expect(expectedLayout).toBe('only.txt\n2 regular file\n1 symbolic link\n1 fifo\n/demo/forked.txt\n');
    const [a, b, c] = await forked(original, 3);
    if (!a || !b || !c) throw new Error('three copies expected');
    // Each copy starts with the original's changes: the new file, and the deleted task file.
    for (const copy of [a, b, c]) {
      expect(await out(copy, 'cat /demo/forked.txt')).toBe('before\n');
      expect((await copy.step('test -e /demo/notes/todo.txt')).info.admissible).toBe(false);
      expect(await out(copy, layout)).toBe(expectedLayout);
    }
    await out(a, 'rm /demo/forked.txt');
    await out(b, 'echo b > /demo/forked.txt && echo only-b > /demo/b.txt');
    await out(c, 'rm -r /demo/src');
    await out(original, 'echo original > /demo/original.txt');
    expect(
      await out(original, 'cat /demo/forked.txt; ls /demo/src | wc -l; ls /demo/b.txt 2>&1 || true'),
    ).toMatch(/^before\n[1-9]\d*\nls: cannot access/);
    expect((await a.step('cat /demo/forked.txt')).info.admissible).toBe(false);
    expect(await out(b, 'cat /demo/forked.txt /demo/b.txt; test -e /demo/original.txt || echo none')).toBe(
      'b\nonly-b\nnone\n',
    );
    expect(await out(c, 'cat /demo/forked.txt; test -e /demo/src || echo gone')).toBe('before\ngone\n');
    // A copy's reset goes back to the task's pristine file system, not to the fork point.
    await c.reset({ index: at('count-python-files') });
    expect(await out(c, 'cat /demo/notes/todo.txt | wc -l; test -e /demo/forked.txt || echo none')).toMatch(
      /^[1-9]\d*\nnone\n$/,
    );
  });

  it("restores the shell's state in each copy: directory, variables, function, alias, umask, options", async ({
    needs,
  }) => {
    needs(noBwrap);
    const original = bashEnv();
    await original.reset({ index: at('count-python-files') });
    await out(
      original,
      [
        'cd /demo/notes && pushd /demo/src >/dev/null',
        'plain=$(printf "tab\\there \\x01\\xff")',
        'export EXPORTED=yes',
        'greet() { echo "hello $1"; }',
        'shopt -s expand_aliases extglob',
        "alias ll='echo aliased'",
        'umask 027',
        'set -o pipefail',
        'declare -A map=([key]=value)',
      ].join('; '),
    );
    const [copy] = await forked(original, 1);
    if (!copy) throw new Error('a copy expected');
    const probe =
      'pwd; dirs; printf "%q\\n" "$plain"; echo "$EXPORTED"; bash -c \'echo "$EXPORTED"\'; greet you; ll; umask; ' +
      'shopt -p extglob; [[ -o pipefail ]] && echo pipefail; declare -p map';
    const expected = await out(original, probe);
    expect(expected).toBe(
      [
        '/demo/src',
        '/demo/src /demo/notes',
        "$'tab\\there \\001\\377'",
        'yes',
        'yes',
        'hello you',
        'aliased',
        '0027',
        'shopt -s extglob',
        'pipefail',
        'declare -A map=([key]="value" )',
        '',
      ].join('\n'),
    );
    expect(await out(copy, probe)).toBe(expected);
    // The state is the copy's own from then on.
    await out(copy, 'cd /; unset EXPORTED; umask 022');
    expect(await out(original, 'pwd; echo "$EXPORTED"; umask')).toBe('/demo/src\nyes\n0027\n');
  });

  it('reads the shell state without running anything in the session: no trap fires', async ({ needs }) => {
    needs(noBwrap);
    const original = bashEnv();
    await original.reset({ index: at('count-python-files') });
    await out(original, "trap 'echo x >> /tmp/debug-trap' DEBUG");
    const count = async () => Number((await out(original, 'wc -l < /tmp/debug-trap')).trim());
    const first = await count();
    const perCommand = (await count()) - first;
    const before = await count();
    await forked(original, 2);
    expect((await count()) - before).toBe(perCommand);
  });

  it('scores a copy as the original in the same state, and after the same actions', async ({ needs }) => {
    needs(noBwrap);
    const original = bashEnv();
    await original.reset({ index: at('write-summary') });
    await out(original, 'mkdir -p /demo/reports');
    const [same, other] = await forked(original, 2);
    if (!same || !other) throw new Error('two copies expected');
    const atFork = await original.score();
    expect(await same.score()).toEqual(atFork);
    expect(atFork.value).toBeLessThan(1);
    const finish = 'wc -l < /demo/logs/app.log > /demo/reports/summary.txt';
    await out(original, finish);
    await out(same, finish);
    await out(other, 'echo 0 > /demo/reports/summary.txt');
    const done = await original.score();
    expect(done.value).toBe(1);
    expect(await same.score()).toEqual(done);
    const wrong = await other.score();
    expect(wrong.parts?.file_changes).toBe(0);
    expect(wrong.value).toBeLessThan(1);
    expect((await same.step('submit')).reward).toBe(1);
  });

  it('leaves the copies whole when the original is closed first', async ({ needs }) => {
    needs(noBwrap);
    const original = bashEnv();
    await original.reset({ index: at('write-summary') });
    await out(original, 'cd /demo && mkdir -p reports');
    const [copy] = await forked(original, 1);
    if (!copy) throw new Error('a copy expected');
    await original.close();
    await expect(original.step('true')).rejects.toMatchObject({ code: 'ENV_CLOSED' });
    await out(copy, 'wc -l < logs/app.log > reports/summary.txt');
    expect((await copy.score()).value).toBe(1);
    // A copy forks again, and its copies score against the same gold.
    const [grandchild] = await forked(copy, 1);
    expect((await grandchild!.score()).value).toBe(1);
  });

  it('lists a process left running in the background in notCopied; the copies do not have it', async ({
    needs,
  }) => {
    needs(noBwrap);
    const original = bashEnv();
    await original.reset({ index: at('count-python-files') });
    await out(original, '(sleep 30 &) ; echo started');
    const { envs, notCopied } = await original.fork(1);
    demo.track(...envs);
    expect(notCopied).toHaveLength(1);
    expect(notCopied[0]).toMatch(/^1 process left running by earlier commands/);
    expect(await out(envs[0]!, 'pgrep -c sleep || true')).toBe('0\n');
    expect(await out(original, 'pgrep -c sleep')).toBe('1\n');
  });

  it('refuses to copy a shell state swapped for an endless file, within bounds, and leaves no copy open', async ({
    needs,
  }) => {
    needs(noBwrap);
    // No warm pool: its spare pair, started in the background, would change the count of open sandboxes.
    const original = bashEnv({ warm: false });
    await original.reset({ index: at('count-python-files') });
    // The state file lives on the shell's /dev; the agent's own command can replace it.
    await original.step('ln -sf /dev/zero /dev/.intercode-state-$$; exit 0');
    const open = provider.size;
    await expect(original.fork(2)).rejects.toMatchObject({ code: 'SANDBOX_IO' });
    expect(provider.size).toBe(open);
  });

  it("opens a copy's sandbox at its first use, in the state of the fork whatever the original did since", async ({
    needs,
  }) => {
    needs(noBwrap);
    // No warm pool: its spare pair, started in the background, would change the count of open sandboxes.
    const original = bashEnv({ warm: false });
    await original.reset({ index: at('write-summary') });
    await out(original, 'cd /demo && echo forked > state.txt && FORKED=yes');
    const open = provider.size;
    const kept = keptSince();
    const [used, unused, closed] = await forked(original, 3);
    if (!used || !unused || !closed) throw new Error('three copies expected');
    // The fork kept one copy of the writable layer and opened no sandbox.
    expect(provider.size).toBe(open);
    expect(kept()).toHaveLength(1);
    await out(original, 'echo later > state.txt && rm logs/app.log && cd / && FORKED=no');
    expect(await out(used, 'pwd; cat state.txt; echo $FORKED; ls logs/app.log')).toBe(
      '/demo\nforked\nyes\nlogs/app.log\n',
    );
    expect(provider.size).toBe(open + 1);
    await closed.close();
    expect(provider.size).toBe(open + 1);
    expect(kept()).toHaveLength(1);
    // The last copy to open (or close) frees the kept layer.
    expect((await unused.score()).value).toBeLessThan(1);
    expect(kept()).toEqual([]);
    expect(await out(unused, 'cat /demo/state.txt')).toBe('forked\n');
    expect(await out(original, 'cat /demo/state.txt')).toBe('later\n');
  });

  it('forks while the gold still runs; a copy scores against the gold once it has run', async ({ needs }) => {
    needs(noBwrap);
    const tasks = demo.dataset.tasks.map((task) =>
      task.id === 'write-summary' ? { ...task, gold: `sleep 3; ${String(task.gold)}` } : task,
    );
    const original = bashEnv({ dataset: { ...demo.dataset, tasks }, warm: false });
    await original.reset({ index: at('write-summary') });
    const started = performance.now();
    const [copy] = await forked(original, 1);
    expect(performance.now() - started, 'the fork waits for no gold (it sleeps 3 s)').toBeLessThan(2_500);
    await out(copy!, 'mkdir -p /demo/reports && wc -l < /demo/logs/app.log > /demo/reports/summary.txt');
    expect((await copy!.score()).value).toBe(1);
    expect((await original.score()).value).toBeLessThan(1);
    // The original's next episode starts once its evaluation sandbox is idle (the gold, the digests).
    await original.reset({ index: at('count-python-files') });
    expect((await copy!.score()).value).toBe(1);
  });

  it('frees a kept layer that no copy used when the copies close', async ({ needs }) => {
    needs(noBwrap);
    const original = bashEnv({ warm: false });
    await original.reset({ index: at('count-python-files') });
    await out(original, 'echo x > /demo/kept.txt');
    const kept = keptSince();
    const copies = await forked(original, 2);
    expect(kept()).toHaveLength(1);
    await Promise.all(copies.map((copy) => copy.close()));
    await expect.poll(kept).toEqual([]);
  });

  it('removes a kept layer never freed when its provider closes', async ({ needs }) => {
    needs(noBwrap);
    const own = new BwrapProvider();
    const kept = keptSince();
    try {
      const sandbox = await own.create();
      await sandbox.session().run('echo x > /tmp/x');
      await sandbox.branch!();
      expect(kept()).toHaveLength(1);
    } finally {
      await own.close();
    }
    expect(kept()).toEqual([]);
  });

  it('forks in upstream compatibility mode: the emulated directory and the files', async ({ needs }) => {
    needs(noBwrap);
    const original = bashEnv({ compat: 'upstream' });
    await original.reset({ index: at('count-python-files') });
    await out(original, 'cd /demo/notes');
    await out(original, 'touch upstream.txt');
    const [copy] = await forked(original, 1);
    expect(await out(copy!, 'pwd')).toBe('/demo/notes\n');
    expect(await out(copy!, 'ls upstream.txt')).toBe('upstream.txt\n');
  });

  it('refuses a fork before reset and a count that is not a whole number from 1 to 256', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = bashEnv();
    await expect(env.fork(1)).rejects.toMatchObject({ code: 'ENV_RESET_NEEDED' });
    await env.reset({ index: at('count-python-files') });
    for (const count of [0, -1, 1.5, 257, Number.NaN]) {
      await expect(env.fork(count)).rejects.toMatchObject({ code: 'ENV_INVALID_ACTION' });
    }
    await env.close();
    await expect(env.fork(1)).rejects.toMatchObject({ code: 'ENV_CLOSED' });
  });
});
