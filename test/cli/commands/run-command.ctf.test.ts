import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { EpisodeRecord } from '../../../src/harness/episode-record.js';
import type { RunSummary } from '../../../src/harness/run-summary.js';
import type { CliRunner } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';
import { jsonLines } from '../../support/json-lines.js';

// `intercode run` of the CTF datasets through the compiled CLI, with the gold agent.

function run(
  cli: CliRunner,
  out: string,
  args: string[],
): {
  summary: RunSummary;
  episodes: EpisodeRecord[];
  stderr: string;
  status: number | null;
} {
  const result = cli.run(['run', ...args, '--agent', 'gold', '--out', out, '--json'], { timeoutMs: 300_000 });
  if (result.status !== 0) throw new Error(`intercode run failed: ${result.stderr}`);
  return {
    summary: JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary,
    episodes: jsonLines<EpisodeRecord>(join(out, 'episodes.jsonl')),
    stderr: result.stderr,
    status: result.status,
  };
}

describe('intercode run with the CTF environment', () => {
  it('demo/ctf: the gold agent solves every task, its solve command printing the flag first', ({
    cli,
    tempDir,
  }) => {
    const { summary, episodes } = run(cli, join(tempDir('ctf-run'), 'run'), ['demo/ctf']);
    expect(summary).toMatchObject({ env: 'ctf', n: 7, solved: 7, successRate: 1, episodeErrors: 0 });
    expect(summary.skipped).toBeUndefined();
    for (const episode of episodes) {
      expect(episode.turns).toHaveLength(2);
      expect(episode.turns[0]!.observation).toContain(episode.gold as string);
      expect(episode.turns[0]!.admissible).toBe(true);
      expect(episode.turns[1]).toMatchObject({ reward: 1, action: `submit ${episode.gold}` });
    }
  });

  it('ctf/picoctf: every runnable task scores 1.0; unrunnable ones are skipped with their reason, not failed', ({
    cli,
    tempDir,
  }) => {
    const { summary, episodes } = run(cli, join(tempDir('ctf-run'), 'run'), ['ctf/picoctf']);
    expect(summary.skipped).toHaveLength(23);
    expect(summary).toMatchObject({ n: 77, solved: 77, successRate: 1, episodeErrors: 0, complete: true });
    expect(episodes.every((episode) => episode.maxReward === 1)).toBe(true);
    const skipped = new Map(summary.skipped!.map((entry) => [entry.taskId, entry.reason]));
    expect(skipped.get('20')).toMatch(/needs the internet/);
    expect(skipped.get('70')).toMatch(/task assets are not available/);
    expect(episodes.some((episode) => skipped.has(episode.taskId))).toBe(false);
    // Task 15 is solved with the corrected flag of upstream issue 25.
    const fifteen = episodes.find((episode) => episode.taskId === '15')!;
    expect(fifteen.turns[0]!.action).toBe(String.raw`submit picoCTF{1|\/|_4_p34|\|ut_f3bc410e}`);
    // The record keeps the gold that was used and says it was corrected.
    expect(fifteen.gold).toBe(String.raw`picoCTF{1|\/|_4_p34|\|ut_f3bc410e}`);
    expect(fifteen).toHaveProperty('erratum.upstreamGold', String.raw`picoCTF{1|/|_4_p34|\|ut_f3bc410e}`);
  });

  it('--include-unrunnable plays the skipped tasks too', ({ cli, tempDir }) => {
    // Indices 1, 9 and 65 are tasks 1 (network), 9 (network) and 65 (assets missing).
    const without = run(cli, join(tempDir('ctf-run'), 'run'), ['ctf/picoctf', '--tasks', '1,9,65,0']);
    expect(without.summary.n).toBe(1);
    expect(without.stderr).toMatch(/skipping 3 unrunnable task/);
    const withAll = run(cli, join(tempDir('ctf-run-all'), 'run'), [
      'ctf/picoctf',
      '--tasks',
      '1,9,65,0',
      '--include-unrunnable',
    ]);
    expect(withAll.summary.skipped).toBeUndefined();
    expect(withAll.episodes.map((episode) => episode.taskId).sort()).toEqual(['0', '1', '65', '9']);
  });
});
