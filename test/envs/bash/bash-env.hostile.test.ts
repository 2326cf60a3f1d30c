import { afterAll, describe, expect } from 'vitest';
import type { Action } from '../../../src/core/action.js';
import { episodeRecordSchema } from '../../../src/core/run-files/episode-record-schema.js';
import type { Dataset } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { BashEnv } from '../../../src/envs/bash/bash-env.js';
import { playEpisode } from '../../../src/harness/play-episode.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// The Bash env's score() against agents that attack the host-side scorer (issue 11, classes 1 and
// 2), on demo/bash in real bwrap sandboxes: a process left running with `setsid` that swaps what the
// walk opens, a tree too deep for a recursive walk, a tree larger than the scorer's bounds.
const provider = new BwrapProvider();
const envs: BashEnv[] = [];
const noBwrap = await bwrapMissing();
let dataset: Dataset;

function bashEnv(): BashEnv {
  const env = new BashEnv({ dataset, provider });
  envs.push(env);
  return env;
}

const index = (id: string) => dataset.tasks.findIndex((task) => task.id === id);

it.beforeAll(async ({ cache: _cache }) => {
  dataset = await resolveDataset('demo/bash');
  if (!noBwrap) await bashEnv().reset({ index: 0 });
}, 120_000);

afterAll(async () => {
  await Promise.all(envs.map((env) => env.close()));
  await provider.close();
});

// Started with setsid (not a job of the shell, so nothing waits for it): swaps the agent's
// /demo/reports/summary.txt with a FIFO and /demo/reports/sub with a symbolic link to the host's
// /dev, and counts its rounds in /tmp/rounds.
const RACER = `
import os
os.makedirs('/demo/reports/sub', exist_ok=True)
for name in ('zero', 'null'):
    open('/demo/reports/sub/' + name, 'w').write('mine')
text = open('/demo/reports/summary.txt', 'rb').read()
n = 0
while True:
    n += 1
    os.rename('/demo/reports/sub', '/demo/reports/real')
    os.symlink('/dev', '/demo/reports/sub')
    os.mkfifo('/demo/reports/fifo')
    os.rename('/demo/reports/fifo', '/demo/reports/summary.txt')
    os.unlink('/demo/reports/sub')
    os.rename('/demo/reports/real', '/demo/reports/sub')
    with open('/demo/reports/new', 'wb') as f:
        f.write(text)
    os.rename('/demo/reports/new', '/demo/reports/summary.txt')
    if n % 100 == 0:
        open('/tmp/rounds', 'w').write(str(n))
`;

describe('BashEnv.score() against a hostile agent', () => {
  it('stops a setsid racer while scoring: the score is of one state, with no host path, and the racer goes on after', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = bashEnv();
    await env.reset({ index: index('write-summary') });
    const gold = dataset.tasks[index('write-summary')]!.gold as string;
    expect((await env.step(gold)).info.admissible).toBe(true);
    const racer = await env.step(
      `cat > /tmp/racer.py <<'EOF'\n${RACER}\nEOF\nsetsid /usr/bin/python3 /tmp/racer.py </dev/null >/dev/null 2>&1 & until [ -s /tmp/rounds ]; do sleep 0.05; done`,
    );
    expect(racer.info.admissible).toBe(true);
    for (let round = 0; round < 20; round += 1) {
      const score = await env.score();
      expect(score.scoreLimit).toBeUndefined();
      const changes = (score.details?.agentChanges ?? []) as { path: string }[];
      // The agent's own files only (the racer's folder and its program).
      expect(changes.map((change) => change.path)).toEqual(['demo/reports/', 'tmp/racer.py', 'tmp/rounds']);
    }
    const before = (await env.step('cat /tmp/rounds')).observation.text;
    // Waits for the racer's next hundred rounds (a loaded machine may take a while): a racer
    // that did not go on leaves the step to its timeout, with no number.
    const after = (
      await env.step(
        `until [ "$(cat /tmp/rounds)" -gt ${Number(before)} ]; do sleep 0.05; done; cat /tmp/rounds`,
      )
    ).observation.text;
    expect(Number(after)).toBeGreaterThan(Number(before));
  }, 120_000);

  it('scores a 1,500-deep tree like any other state (no recursion error, no infrastructure error)', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = bashEnv();
    await env.reset({ index: index('write-summary') });
    const deep = await env.step(
      "mkdir -p /demo/reports && /usr/bin/python3 -c \"import os\nos.chdir('/demo/reports')\nfor _ in range(1500):\n    os.mkdir('d')\n    os.chdir('d')\nopen('f', 'w').write('x')\"",
    );
    expect(deep.info.admissible).toBe(true);
    const score = await env.score();
    expect(score.scoreLimit).toBeUndefined();
    expect(score.details?.agentChanges).toEqual([{ path: 'demo/reports/', status: '??' }]);
    // The folder is the gold's, its contents are not: the file-diff part only.
    expect(score.value).toBeGreaterThan(0);
    expect(score.value).toBeLessThan(1);
  }, 120_000);

  it('scores a tree past the entry bound 0 with the reason, recorded in the episode', async ({
    needs,
    setEnv,
  }) => {
    needs(noBwrap);
    setEnv('INTERCODE_SCORER_MAX_ENTRIES', '2000');
    const env = bashEnv();
    const task = dataset.tasks[index('write-summary')]!;
    const actions: (Action | string)[] = [
      task.gold as string,
      "/usr/bin/python3 -c \"import os\nos.makedirs('/demo/many')\nfor i in range(3000):\n    open('/demo/many/%d' % i, 'w').close()\"",
      'submit',
    ];
    const record = await playEpisode(
      env,
      task,
      { act: async ({ turn }) => actions[turn] },
      { maxTurns: 10, scoreEveryTurn: false, dataset: 'demo/bash' },
    );
    expect(record.reward).toBe(0);
    expect(record.error).toBeUndefined();
    expect(record.scoreLimit).toMatch(/more than 2000 file-system entries/);
    expect(episodeRecordSchema.parse(record)).toMatchObject({ scoreLimit: record.scoreLimit });
    // The same env scores the next episode normally.
    await env.reset({ index: index('write-summary') });
    await env.step(task.gold as string);
    expect((await env.score()).value).toBe(1);
  }, 120_000);

  it('waits for background jobs even when the agent shadows the builtins of the check (`read() { return 1; }`)', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = bashEnv();
    await env.reset({ index: index('write-summary') });
    // Functions and aliases of the session cannot hide a job from the check that scoring waits on:
    // it runs in the shell's controller, which carries none of the session's state.
    await env.step(
      'read() { return 1; }; shopt -s expand_aliases; alias builtin=false; (sleep 0.3; echo late > /demo/late.txt) &',
    );
    const score = await env.score();
    expect(score.details?.agentChanges).toContainEqual({ path: 'demo/late.txt', status: '??' });
  }, 60_000);

  it('keeps the shell state across a score (Try Again scores every turn)', async ({ needs }) => {
    needs(noBwrap);
    const env = bashEnv();
    await env.reset({ index: index('write-summary') });
    await env.step('cd /demo/logs; X=5; sleep 30 &');
    await env.score();
    // Each command runs in its own child of the shell's controller, so `jobs` of a later command
    // never lists the sleep: look for the process itself.
    const after = await env.step(
      'echo "$X $PWD"; for p in /proc/[0-9]*; do read -r c < $p/comm 2>/dev/null && [ "$c" = sleep ] && echo sleeping; done',
    );
    expect(after.observation.text).toBe('5 /demo/logs\nsleeping\n');
  }, 60_000);
});
