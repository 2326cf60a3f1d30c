import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { cacheDir } from '../../../src/core/host/cache-dir.js';
import { ensureDebianImage } from '../../../src/sandbox/index.js';
import { intercode } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';
import { jsonLines } from '../../support/json-lines.js';
import { dockerMissing } from '../../support/missing-components.js';
import { describeMissing } from '../../support/skip-if-missing.js';

// The gold agent through the real CLI on both backends with the same Debian image: docker must
// score every task exactly as bwrap does (and every gold solves its task). The images come from the
// user cache (CI builds them: `intercode image build bash python`); a missing one is built here.

interface Episode {
  taskId: string;
  reward: number;
  turns: { reward: number }[];
}

const CASES = [
  { dataset: 'demo/bash', image: 'debian', profile: 'bash' },
  { dataset: 'demo/python', image: 'debian:python', profile: 'python' },
] as const;

const noDocker = await dockerMissing();

if (noDocker) {
  describeMissing('gold on docker and bwrap', noDocker, 'docker');
} else {
  describe('gold on docker and bwrap', () => {
    // The user cache, not the file's own: images are large and built once; the demo layers are small.
    const cache = cacheDir();

    it.beforeAll(async () => {
      for (const { profile } of CASES) await ensureDebianImage(profile);
    }, 900_000);

    /** Rewards of a gold run, by task id: the episode's and each turn's. */
    function goldRewards(out: string, dataset: string, backend: string, image: string) {
      const result = intercode(
        ['run', dataset, '--agent', 'gold', '--backend', backend, '--image', image, '--out', out, '--json'],
        { cache, timeoutMs: 300_000 },
      );
      expect(result.status, `${backend}: ${result.stderr}`).toBe(0);
      const episodes = jsonLines<Episode>(join(out, 'episodes.jsonl'));
      return Object.fromEntries(
        episodes.map((episode) => [
          episode.taskId,
          { reward: episode.reward, turns: episode.turns.map((turn) => turn.reward) },
        ]),
      );
    }

    it('demo/bash on docker without --image: the backend picks its own image (debian) and solves 30/30', {
      timeout: 700_000,
    }, ({ tempDir }) => {
      const out = join(tempDir('docker-default-image'), 'run');
      const result = intercode(['run', 'demo/bash', '--backend', 'docker', '--out', out, '--json'], {
        cache,
        timeoutMs: 600_000,
      });
      expect(result.status, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout) as { backend?: string; n: number; solved: number };
      expect(summary).toMatchObject({ backend: 'docker', n: 30, solved: 30 });
    });

    it.for(CASES)(
      '$dataset ($image): docker scores every task as bwrap does, all 1.0',
      { timeout: 700_000 },
      ({ dataset, image }, { tempDir }) => {
        const bwrap = goldRewards(join(tempDir('docker-gold-bwrap'), 'run'), dataset, 'bwrap', image);
        const docker = goldRewards(join(tempDir('docker-gold-docker'), 'run'), dataset, 'docker', image);
        expect(Object.keys(bwrap).length).toBeGreaterThan(0);
        expect(docker).toEqual(bwrap);
        const unsolved = Object.entries(docker).filter(([, { reward }]) => reward !== 1);
        expect(unsolved).toEqual([]);
      },
    );
  });
}
