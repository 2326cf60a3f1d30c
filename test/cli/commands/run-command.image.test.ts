import { join } from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { cacheDir } from '../../../src/core/host/cache-dir.js';
import { readEpisodeRecords } from '../../../src/core/run-files/read-episode-records.js';
import { readRunSummary } from '../../../src/harness/run-files/read-run-summary.js';
import { ensureDebianImage } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';

// NL2Bash's tasks were written for a container: a run that names no image plays them on debian:bash
// once it is built, and on the host image with a notice until then. Real gold episodes through the
// compiled CLI, in the file's empty cache (nothing built) and in the cache the suite builds its
// images in (this process's, read before the fixtures replace it).

const BUILT = cacheDir();
const SLOW = { timeoutMs: 300_000 };
const NOTICE =
  /^intercode: nl2bash\/fs1 runs on the host image: debian:bash, the image its tasks were written for, is not built .*`intercode image build bash`/m;

beforeAll(async () => {
  await ensureDebianImage('bash');
}, 600_000);

describe('intercode run on a dataset with its own image', () => {
  it('plays on the host image with a notice until debian:bash is built, then on it, and a resume keeps the setting', ({
    cli,
    tempDir,
  }) => {
    const gold = ['--agent', 'gold', '--json'];
    const onHost = join(tempDir('own-image'), 'host');
    const first = cli.run(['run', 'nl2bash/fs1', '--tasks', '0-1', ...gold, '--out', onHost], SLOW);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toMatch(NOTICE);
    expect(readRunSummary(join(onHost, 'summary.json'))).toMatchObject({ image: 'host', n: 2, solved: 2 });

    const built = { ...SLOW, env: { INTERCODE_CACHE_DIR: BUILT } };
    const onDebian = join(tempDir('own-image'), 'debian');
    const second = cli.run(['run', 'nl2bash/fs1', '--tasks', '0-1', ...gold, '--out', onDebian], built);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(/runs on the/);
    expect(readRunSummary(join(onDebian, 'summary.json'))).toMatchObject({
      image: 'debian:bash',
      backend: 'bwrap',
      n: 2,
      solved: 2,
    });

    // Resuming on another image would mix two setups in one run: refused in one line, before any
    // episode, naming the option that continues it; whether the image came from --image or the cache.
    const refusal = `intercode: --resume: ${onHost} was played with image host, this run would use debian:bash: pass --image host to continue it\n`;
    const more = ['run', 'nl2bash/fs1', '--tasks', '0-2', ...gold, '--resume'];
    const mixed = cli.run([...more, '--out', onHost], built);
    expect([mixed.status, mixed.stderr]).toEqual([1, refusal]);
    const named = cli.run([...more, '--out', onHost, '--image', 'debian'], SLOW);
    expect(named.status).toBe(1);
    expect(named.stderr).toBe(refusal.replace('use debian:bash', 'use debian'));
    expect(readEpisodeRecords(join(onHost, 'episodes.jsonl'))).toHaveLength(2);

    // Another setting than the image is refused the same way (every setting the summary names).
    const turns = cli.run([...more, '--out', onDebian, '--max-turns', '3'], built);
    expect([turns.status, turns.stderr]).toEqual([
      1,
      `intercode: --resume: ${onDebian} was played with max turns 10, this run would use 3: pass --max-turns 10 to continue it\n`,
    ]);

    // The same setup continues: here the cache builds nothing new, and the image is debian:bash again.
    const resumed = cli.run([...more, '--out', onDebian], built);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(readRunSummary(join(onDebian, 'summary.json'))).toMatchObject({ image: 'debian:bash', n: 3 });
    const kept = cli.run([...more, '--out', onHost, '--image', 'host'], built);
    expect(kept.status, kept.stderr).toBe(0);
    expect(kept.stderr).not.toMatch(/runs on the/);
    expect(readRunSummary(join(onHost, 'summary.json'))).toMatchObject({ image: 'host', n: 3 });
  });
});
