/**
 * The Bash env's warm pool on real bwrap sandboxes: the next episode's pair of sandboxes is made
 * ready while the current episode runs and the next reset takes it; an episode served that way (from
 * a new pair, or from the last episode's pair renewed) sees nothing of an earlier one; a spare on
 * another task file system is never used; `warm: false` and `INTERCODE_WARM_POOL=off` keep none;
 * close() leaves no sandbox open, also while the spare is still starting.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect } from 'vitest';
import type { Env, WarmPoolStats } from '../../../src/core/env.js';
import type { Dataset } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { BashEnv, type BashEnvOptions } from '../../../src/envs/bash/bash-env.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

const noBwrap = await bwrapMissing();
let dataset: Dataset;
const providers: BwrapProvider[] = [];

/** An env on a provider of its own, so that its open sandboxes can be counted. */
function bashEnv(
  options: Partial<BashEnvOptions> = {},
  data = dataset,
): { env: BashEnv; provider: BwrapProvider } {
  const provider = new BwrapProvider();
  providers.push(provider);
  return { env: new BashEnv({ dataset: data, provider, ...options }), provider };
}

/** Waits until the env holds its spare pair ready (bounded by the test's own time limit). */
async function spareReady(env: Env): Promise<WarmPoolStats> {
  for (;;) {
    const stats = await env.warmPool!();
    if (stats.idle === stats.limit) return stats;
    await sleep(20);
  }
}

/** The output of a command that must succeed. */
async function out(env: Env, command: string): Promise<string> {
  const step = await env.step(command);
  expect(step.info.admissible, `${command}: ${step.observation.text}`).toBe(true);
  return step.observation.text;
}

/** What an episode must not see of an earlier one, as one line of `out`. */
const TRACES =
  'echo "files=$(ls /demo/leak.txt /tmp/leak /dev/shm/leak 2>/dev/null | wc -l) ' +
  'sleeps=$(pgrep -c sleep) var=$(printenv LEAK || echo none) fn=$(type -t leak || echo none) cwd=$PWD"';
const CLEAN = 'files=0 sleeps=0 var=none fn=none cwd=/\n';

/** Leaves every kind of trace an episode can leave in its sandbox. */
async function litter(env: Env): Promise<void> {
  await out(
    env,
    'echo x > /demo/leak.txt; echo x > /tmp/leak; echo x > /dev/shm/leak; export LEAK=1; leak() { :; }; ' +
      '(sleep 600 &); cd /tmp; echo done',
  );
}

const index = (id: string) => dataset.tasks.findIndex((task) => task.id === id);

it.beforeAll(async ({ cache: _cache }) => {
  dataset = await resolveDataset('demo/bash');
}, 120_000);

afterAll(async () => {
  await Promise.all(providers.map((provider) => provider.close()));
});

describe('BashEnv warm pool on bwrap', () => {
  it('serves each reset from a pair made ready meanwhile, and no episode sees an earlier one', async ({
    needs,
  }) => {
    needs(noBwrap);
    const { env, provider } = bashEnv();
    // Which agent sandbox each command ran in: the provider's own sandboxes, their shell use recorded.
    const create = provider.create.bind(provider);
    let ranIn = '';
    provider.create = async (spec) => {
      const sandbox = await create(spec);
      const session = sandbox.session.bind(sandbox);
      if (spec?.label === 'agent') {
        sandbox.session = () => {
          ranIn = sandbox.id;
          return session();
        };
      }
      return sandbox;
    };
    const task = index('count-python-files');
    const rewards: number[] = [];
    const agents: string[] = [];
    for (let episode = 0; episode < 3; episode++) {
      await env.reset({ index: task });
      if (episode > 0) {
        // The spare was taken: what the pool holds now is being made ready for the next episode.
        expect((await env.warmPool()).idle).toBe(0);
      }
      expect(await out(env, TRACES)).toBe(CLEAN);
      agents.push(ranIn);
      await env.step("find /demo/src -type f -name '*.py' | wc -l");
      rewards.push((await env.score()).value);
      await litter(env);
      const ready = await spareReady(env);
      expect(ready).toMatchObject({ idle: 2, limit: 2 });
      expect(ready.memoryBytes).toBeGreaterThan(0);
      // The episode's pair and the spare pair: four sandboxes.
      expect(provider.size).toBe(4);
    }
    // Episode 1 ran on the spare pair, episode 2 on episode 0's pair renewed: each scored as a cold one.
    expect(agents[1]).not.toBe(agents[0]);
    expect(agents[2]).toBe(agents[0]);
    expect(rewards).toEqual([1, 1, 1]);
    await env.close();
    expect(provider.size).toBe(0);
  });

  it('never serves a spare made on another task file system', async ({ needs, fileTempDir }) => {
    needs(noBwrap);
    const dir = fileTempDir('warm-layers');
    const assets: Record<string, string> = {};
    for (const name of ['a', 'b']) {
      assets[`setupScript:${name}`] = join(dir, `${name}.sh`);
      writeFileSync(assets[`setupScript:${name}`]!, `mkdir -p /fs && echo ${name} > /fs/name\n`);
    }
    const tasks = ['a', 'b', 'a', 'a', 'b'].map((group, at) => ({
      id: `t${at}`,
      index: at,
      query: 'Which file system is this?',
      gold: 'cat /fs/name',
      group,
      meta: {},
    }));
    const { env } = bashEnv({}, { id: 'warm-layers', env: 'bash', tasks, assets });
    for (const task of tasks) {
      await env.reset({ index: task.index });
      expect(await out(env, 'cat /fs/name')).toBe(`${task.group}\n`);
      expect((await env.score()).value).toBe(1);
      await spareReady(env);
    }
    await env.close();
  });

  it('keeps no spare with warm: false or INTERCODE_WARM_POOL=off', async ({ needs, setEnv }) => {
    needs(noBwrap);
    const check = async (options: Partial<BashEnvOptions>) => {
      const { env, provider } = bashEnv(options);
      for (let episode = 0; episode < 2; episode++) {
        await env.reset({ index: index('count-python-files') });
        expect(await out(env, TRACES)).toBe(CLEAN);
        await litter(env);
        expect(await env.warmPool()).toEqual({ idle: 0, memoryBytes: 0, limit: 0 });
        expect(provider.size).toBe(2);
      }
      await env.close();
      expect(provider.size).toBe(0);
    };
    await check({ warm: false });
    setEnv('INTERCODE_WARM_POOL', 'off');
    await check({});
  });

  it('leaves no sandbox open when closed while its spare is still starting', async ({ needs }) => {
    needs(noBwrap);
    const { env, provider } = bashEnv();
    await env.reset({ index: index('count-python-files') });
    // The spare pair was asked for when the reset returned: it is still starting.
    await env.close();
    expect(provider.size).toBe(0);
    await expect(env.reset({ index: 0 })).rejects.toMatchObject({ code: 'ENV_CLOSED' });
    expect(provider.size).toBe(0);
  });
});
