/**
 * BashEnv on the docker backend, whose sandboxes keep a spare container for their next reset
 * (`SandboxProvider.resetsAhead`): the env keeps no spare pair of its own on top (two containers
 * per episode, not four), reports the sandboxes' spares as its warm pool, and scores the gold 1.0
 * episode after episode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WarmPoolStats } from '../../../src/core/env.js';
import type { Dataset } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { BashEnv } from '../../../src/envs/bash/bash-env.js';
import { DockerProvider } from '../../../src/sandbox/docker/docker-provider.js';
import { ensureDebianImage } from '../../../src/sandbox/index.js';
import { dockerMissing } from '../../support/missing-components.js';
import { describeMissing } from '../../support/skip-if-missing.js';

const noDocker = await dockerMissing();

/** Polls the env's warm pool until `done` accepts it; the last figures otherwise. */
async function poolOnce(env: BashEnv, done: (pool: WarmPoolStats) => boolean): Promise<WarmPoolStats> {
  let pool = await env.warmPool();
  for (let tries = 0; tries < 600 && !done(pool); tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    pool = await env.warmPool();
  }
  return pool;
}

if (noDocker) {
  describeMissing('BashEnv on docker', noDocker, 'docker');
} else {
  describe('BashEnv on docker', () => {
    const provider = new DockerProvider();
    let dataset: Dataset;
    const opened: BashEnv[] = [];
    const bashEnv = (warm?: boolean) => {
      const env = new BashEnv({
        dataset,
        provider,
        image: 'debian:bash',
        ...(warm === false ? { warm } : {}),
      });
      opened.push(env);
      return env;
    };

    beforeAll(async () => {
      await ensureDebianImage('bash');
      dataset = await resolveDataset('demo/bash');
    }, 900_000);
    afterAll(async () => {
      await Promise.all(opened.map((env) => env.close()));
      await provider.close();
    });

    it('keeps no spare pair of its own: the sandboxes reset ahead, and their spares are the pool', async () => {
      const env = bashEnv();
      for (const id of ['count-python-files', 'write-summary', 'backup-markdown']) {
        const index = dataset.tasks.findIndex((task) => task.id === id);
        await env.reset({ index });
        // The agent's and the evaluator's sandbox only: no second pair starts beside them.
        expect(provider.size).toBe(2);
        await env.step(dataset.tasks[index]!.gold as string);
        expect((await env.score()).value).toBe(1);
      }
      // Each sandbox has been reset, so each holds a spare container for its next reset.
      const pool = await poolOnce(env, (figures) => figures.idle === 2);
      expect(pool).toMatchObject({ idle: 2, limit: 2 });
      expect(pool.memoryBytes).toBeGreaterThan(0);
      expect(provider.size).toBe(2);
      await env.close();
      expect(provider.size).toBe(0);
    }, 300_000);
  });
}
