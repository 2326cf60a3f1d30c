import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheDir } from '../../src/core/host/cache-dir.js';
import { ensureDebianImage } from '../../src/sandbox/index.js';
import { cleanup, tempDir } from '../datasets/mirror-fixture.js';
import { describeDockerMissing, dockerUnavailable } from '../sandbox/docker-gate.js';
import { intercode, jsonLines } from './cli-fixture.js';

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

const reason = await dockerUnavailable();

if (reason) {
  describeDockerMissing('gold on docker and bwrap', reason);
} else {
  describe('gold on docker and bwrap', () => {
    const made: string[] = [];
    // The user cache: images are large and built once; the demo layers are small.
    const cache = cacheDir();

    beforeAll(async () => {
      for (const { profile } of CASES) await ensureDebianImage(profile);
    }, 900_000);
    afterAll(() => cleanup(made));

    /** Rewards of a gold run, by task id: the episode's and each turn's. */
    function goldRewards(dataset: string, backend: string, image: string) {
      const out = join(tempDir(`docker-gold-${backend}`, made), 'run');
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

    it.each(CASES)(
      '$dataset ($image): docker scores every task as bwrap does, all 1.0',
      ({ dataset, image }) => {
        const bwrap = goldRewards(dataset, 'bwrap', image);
        const docker = goldRewards(dataset, 'docker', image);
        expect(Object.keys(bwrap).length).toBeGreaterThan(0);
        expect(docker).toEqual(bwrap);
        const unsolved = Object.entries(docker).filter(([, { reward }]) => reward !== 1);
        expect(unsolved).toEqual([]);
      },
      700_000,
    );
  });
}
