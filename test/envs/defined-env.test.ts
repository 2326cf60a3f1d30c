import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import type { Env } from '../../src/core/env.js';
import type { Dataset } from '../../src/core/task.js';
import { defineEnvironment, type EnvironmentSpec, type RewardContext } from '../../src/index.js';
import { BwrapProvider } from '../../src/sandbox/index.js';
import { it } from '../support/fixtures.js';
import { bwrapMissing } from '../support/missing-components.js';

// An environment made by defineEnvironment, run: a small environment in real bwrap sandboxes, with
// the default shell runner.
const provider = new BwrapProvider();
const envs: Env[] = [];
const noBwrap = await bwrapMissing();
let files: string;
const big = randomBytes(1536 * 1024);

const dataset: Dataset = {
  id: 'words',
  env: 'words',
  tasks: [
    { id: 'a', index: 0, query: 'print the word', gold: 'apple', meta: {} },
    { id: 'b', index: 1, query: 'print the word', gold: 'berry', meta: {} },
  ],
  assets: {},
};

const seen: RewardContext[] = [];

const spec: EnvironmentSpec = {
  name: 'words',
  description: 'print the word of the task',
  taskFiles: (task) => [
    { from: join(files, 'say.sh'), to: '/opt/words/say.sh' },
    { from: join(files, 'data'), to: `/srv/${task.id}`, exclude: ['secret'] },
  ],
  workdir: (task) => `/play/${task.id}`,
  reward: (context) => {
    seen.push(context);
    return context.history.some((entry) => entry.output.trim() === context.task.gold) ? 1 : 0;
  },
  goldActions: (task) => [`/opt/words/say.sh ${task.gold}`, 'submit'],
};

async function open(
  overrides: Partial<EnvironmentSpec> = {},
  config: { provider?: BwrapProvider; warm?: boolean } = {},
): Promise<Env> {
  const factory = await defineEnvironment({ ...spec, ...overrides }).open({
    dataset,
    config: { kind: 'sandbox', provider, ...config },
  });
  const env = factory.create();
  envs.push(env);
  return env;
}

it.beforeAll(async ({ fileTempDir }) => {
  files = fileTempDir('define-env');
  writeFileSync(join(files, 'say.sh'), '#!/bin/sh\necho "$1"\n');
  chmodSync(join(files, 'say.sh'), 0o755);
  mkdirSync(join(files, 'data', 'secret'), { recursive: true });
  writeFileSync(join(files, 'data', 'secret', 'answer.txt'), 'apple\n');
  writeFileSync(join(files, 'data', 'big.bin'), big);
});

afterAll(async () => {
  await Promise.all(envs.map((env) => env.close()));
  await provider.close();
});

describe('DefinedEnv (an environment made by defineEnvironment)', () => {
  it('copies files (modes kept, excluded names left out, large ones too) and starts in the created workdir', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = await open();
    await env.reset({ taskId: 'b' });
    const listing = await env.step(
      'pwd; ls -A /srv/b; stat -c %a /opt/words/say.sh; md5sum < /srv/b/big.bin',
    );
    const md5 = (await import('node:crypto')).createHash('md5').update(big).digest('hex');
    expect(listing.observation.text).toBe(`/play/b\nbig.bin\n755\n${md5}  -\n`);
  });

  it('runs actions in the persistent shell; submit scores with the history and ends the episode', async ({
    needs,
  }) => {
    needs(noBwrap);
    const env = await open();
    await env.reset({ taskId: 'a' });
    const first = await env.step('word=apple; false');
    expect(first).toMatchObject({ reward: 0, terminated: false, info: { admissible: false } });
    expect((await env.step('/opt/words/say.sh "$word"')).observation).toMatchObject({
      text: 'apple\n',
      exitCode: 0,
    });
    const submitted = await env.step('submit it is  apple ');
    expect(submitted).toMatchObject({ reward: 1, terminated: true });
    expect(submitted.observation.text).toBe('apple\n');
    const last = seen.at(-1)!;
    expect(last.submission).toBe('it is  apple');
    expect(last.history.map((entry) => entry.action)).toEqual([
      'word=apple; false',
      '/opt/words/say.sh "$word"',
    ]);
    expect((await env.step('skip')).terminated).toBe(true);
  });

  it('starts every episode from a fresh sandbox', async ({ needs }) => {
    needs(noBwrap);
    const env = await open();
    await env.reset({ taskId: 'a' });
    await env.step('touch /srv/a/mine; export LEFT=1');
    await env.reset({ taskId: 'a' });
    expect((await env.step('ls /srv/a; echo "[$LEFT]"')).observation.text).toBe('big.bin\n[]\n');
  });

  it('keeps one sandbox ready for the next episode (off with warm: false); each episode starts fresh', async ({
    needs,
  }) => {
    needs(noBwrap);
    const own = new BwrapProvider();
    try {
      const env = await open({}, { provider: own });
      for (let episode = 0; episode < 3; episode++) {
        await env.reset({ taskId: 'a' });
        expect((await env.step('ls /srv/a; echo "[$LEFT]"; pgrep -c sleep')).observation.text).toBe(
          'big.bin\n[]\n0\n',
        );
        await env.step('touch /srv/a/mine; export LEFT=1; (sleep 600 &)');
        while ((await env.warmPool!()).idle < 1) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await env.warmPool!()).toMatchObject({ idle: 1, limit: 1 });
        expect(own.size).toBe(2);
      }
      await env.close();
      expect(own.size).toBe(0);
      const cold = await open({}, { provider: own, warm: false });
      await cold.reset({ taskId: 'a' });
      expect(await cold.warmPool!()).toEqual({ idle: 0, memoryBytes: 0, limit: 0 });
      expect(own.size).toBe(1);
      await cold.close();
      expect(own.size).toBe(0);
    } finally {
      await own.close();
    }
  });

  it('a missing task file fails the reset with a one-line error', async ({ needs }) => {
    needs(noBwrap);
    const env = await open({ taskFiles: () => [{ from: join(files, 'nope'), to: '/x' }] });
    await expect(env.reset({ taskId: 'a' })).rejects.toThrow(/task file .*nope does not exist/);
  });
});
