/**
 * NL2Bash gold errata: fs1/55's gold (`grep -r Hello *` run from `/`) reads `/proc` and never ends;
 * the corrected gold leaves `/proc` and `/sys` out. The erratum matches upstream's task exactly (the
 * real task file, from the data mirror), the gold agent and the evaluator both use the corrected
 * gold, the reset says so, and the episode ends with reward 1 on the Debian image (real bwrap
 * sandboxes). The host image is not used here: there the gold reads the host's whole `/usr`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { Dataset, Task } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { BashEnv } from '../../../src/envs/bash/bash-env.js';
import {
  bashGoldCommand,
  bashGoldErratum,
  bashGoldInfo,
  NL2BASH_GOLD_ERRATA,
} from '../../../src/envs/bash/nl2bash-errata.js';
import { createEnvRegistry } from '../../../src/envs/env-registry.js';
import { BwrapProvider, ensureDebianImage } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

const erratum = NL2BASH_GOLD_ERRATA[0]!;
const noBwrap = await bwrapMissing();

function fs1Task(id: string, gold: string | string[], fileSystem = 'fs1'): Task {
  return { id, index: 55, query: 'Find the folders of the files with Hello.', gold, meta: { fileSystem } };
}

describe('NL2Bash gold errata', () => {
  it("match upstream's fs1/55 exactly, under both of its ids", async ({ mirror: _mirror }) => {
    for (const id of ['nl2bash/fs1', 'nl2bash']) {
      const dataset = await resolveDataset(id);
      const matched = dataset.tasks.filter((task) => bashGoldErratum(task) !== undefined);
      expect(matched.map((task) => task.id)).toEqual([id === 'nl2bash' ? 'fs1/55' : '55']);
      expect(matched[0]!.gold).toBe(erratum.upstreamGold);
    }
  });

  it('leave every other task as it is', () => {
    expect(bashGoldErratum(fs1Task('54', erratum.upstreamGold))).toBeUndefined();
    expect(bashGoldErratum(fs1Task('55', erratum.upstreamGold, 'fs2'))).toBeUndefined();
    expect(bashGoldErratum(fs1Task('55', 'grep -r Hello .'))).toBeUndefined();
    expect(bashGoldCommand(fs1Task('3', ['cd /a', 'ls']))).toBe('cd /a;ls');
    expect(bashGoldInfo(fs1Task('3', 'ls'))).toEqual({ gold: 'ls' });
  });

  it('give the corrected gold to the gold agent and the reset info', () => {
    const task = fs1Task('fs1/55', erratum.upstreamGold);
    const bash = createEnvRegistry().get('bash');
    expect(bash.goldActions(task)).toEqual([erratum.correctedGold]);
    expect(erratum.correctedGold).toContain('--exclude-dir=proc --exclude-dir=sys');
    expect(bashGoldInfo(task)).toEqual({
      gold: erratum.correctedGold,
      erratum: {
        gold: erratum.correctedGold,
        upstreamGold: erratum.upstreamGold,
        source: erratum.source,
        reason: erratum.reason,
      },
    });
  });
});

describe('the corrected fs1/55 in real sandboxes (debian image)', () => {
  const provider = new BwrapProvider();
  const script = join(mkdtempSync(join(tmpdir(), 'intercode-errata-')), 'setup.sh');
  writeFileSync(
    script,
    'mkdir -p /testbed/dir1/sub\necho Hello > /testbed/dir1/sub/a.txt\necho Hello > /index.html\n',
  );
  const dataset: Dataset = {
    id: 'test/errata',
    env: 'bash',
    tasks: [fs1Task('55', erratum.upstreamGold)],
    assets: { setupScript: script },
  };

  beforeAll(async () => {
    if (!noBwrap) await ensureDebianImage('bash');
  }, 600_000);
  afterAll(() => provider.close());

  it('ends, finds the task files, and scores the gold agent 1', async ({ needs }) => {
    needs(noBwrap);
    // It reads the image's whole /usr, about a second here: generous limits, so that a loaded machine
    // (CI's parallel workers) cuts neither the action nor the gold short.
    const env = new BashEnv({
      dataset,
      provider,
      image: 'debian',
      warm: false,
      actionTimeoutMs: 120_000,
      goldTimeoutMs: 120_000,
    });
    try {
      const reset = await env.reset({ index: 0 });
      expect(reset.info.gold).toBe(erratum.correctedGold);
      expect(reset.info.erratum).toMatchObject({ upstreamGold: erratum.upstreamGold });
      const step = await env.step(erratum.correctedGold);
      const lines = step.observation.text.split('\n');
      expect(lines).toContain('testbed/dir1/sub');
      expect(lines).toContain('.');
      expect(step.observation.text).not.toMatch(/^proc\//m);
      const score = await env.score();
      expect(score.goldCorrupt).toBeUndefined();
      expect(score.details?.goldLimit).toBeUndefined();
      expect(score.details?.goldOutput).toBe(step.observation.text);
      expect(score.value).toBe(1);
    } finally {
      await env.close();
    }
  }, 300_000);
});
