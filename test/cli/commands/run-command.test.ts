import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect } from 'vitest';
import { bwrapResidue } from '../../sandbox/bwrap-residue.js';
import { expectOneLineError } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';
import { jsonLines } from '../../support/json-lines.js';
import { bwrapMissing } from '../../support/missing-components.js';
import { ownerOf } from '../../support/owner-of.js';
import { waitFor } from '../../support/wait-for.js';

// `intercode run` end to end: the compiled CLI in a child process, real bwrap sandboxes, real
// files. One cache dir for the file, so the demo file system is built once.
const noBwrap = await bwrapMissing();
/** The full gold run of demo/bash, shared by the tests that read a finished run. */
let fullRun = '';

interface Turn {
  action: string;
  observation: string;
  reward: number;
  admissible: boolean;
  durationMs: number;
}
interface Episode {
  taskId: string;
  index: number;
  dataset: string;
  query: string;
  gold?: unknown;
  turns: Turn[];
  reward: number;
  maxReward: number;
  success: boolean;
  turnsTaken: number;
  terminated: boolean;
  truncated: boolean;
  group?: string;
  error?: string;
}

const episodesOf = (dir: string) => jsonLines<Episode>(join(dir, 'episodes.jsonl'));
const summaryOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Record<string, unknown>;
const rewardsByTask = (episodes: Episode[]) =>
  Object.fromEntries(episodes.map((episode) => [episode.taskId, episode.turns.map((turn) => turn.reward)]));

/** A task file of `count` slow tasks in `dir`: every gold sleeps, so a run can be stopped midway. */
function slowTasks(dir: string, count: number, sleep: number): string {
  const file = join(dir, 'slow.jsonl');
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ id: `slow-${i}`, query: `slow task ${i}`, gold: `sleep ${sleep}; echo done ${i}` }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

it.beforeAll(async ({ cli, fileTempDir }) => {
  if (noBwrap) return;
  fullRun = join(fileTempDir('run'), 'gold');
  const result = cli.run(['run', 'demo/bash', '--agent', 'gold', '--out', fullRun]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
}, 120_000);

describe('intercode run', () => {
  it('plays every demo/bash gold to reward 1 and writes episodes.jsonl and summary.json (DESIGN §8)', ({
    needs,
  }) => {
    needs(noBwrap);
    const episodes = episodesOf(fullRun);
    expect(episodes).toHaveLength(30);
    expect(readFileSync(join(fullRun, 'episodes.jsonl'), 'utf8').split('\n')).toHaveLength(31);
    expect(episodes.map((episode) => episode.index)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(new Set(episodes.map((episode) => episode.taskId)).size).toBe(30);
    for (const episode of episodes) {
      expect(Object.keys(episode)).toEqual(
        expect.arrayContaining([
          'taskId',
          'index',
          'dataset',
          'query',
          'gold',
          'turns',
          'reward',
          'maxReward',
          'success',
          'turnsTaken',
          'terminated',
          'truncated',
          'group',
        ]),
      );
      expect(episode).toMatchObject({
        dataset: 'demo/bash',
        reward: 1,
        maxReward: 1,
        success: true,
        turnsTaken: 1,
        terminated: true,
        truncated: false,
      });
      expect(episode.error).toBeUndefined();
      expect(typeof episode.query).toBe('string');
      expect(['search', 'text', 'files', 'archive', 'checksum']).toContain(episode.group);
      expect(episode.turns).toHaveLength(1);
      const [turn] = episode.turns;
      expect(turn).toMatchObject({ action: episode.gold, reward: 1, admissible: true });
      expect(typeof turn!.observation).toBe('string');
      expect(turn!.durationMs).toBeGreaterThanOrEqual(0);
    }
    const summary = summaryOf(fullRun);
    expect(summary).toMatchObject({
      dataset: 'demo/bash',
      env: 'bash',
      agent: 'gold',
      backend: 'bwrap',
      // A registered dataset: deterministic by default (CI installs libfaketime).
      deterministic: true,
      clockPinned: true,
      n: 30,
      solved: 30,
      successRate: 1,
      meanReward: 1,
      meanTurns: 1,
      errorRate: 0,
      complete: true,
    });
    expect(summary.durationMs).toBeGreaterThan(0);
    expect(summary.byGroup).toEqual({
      archive: { n: 4, successRate: 1, meanReward: 1 },
      checksum: { n: 2, successRate: 1, meanReward: 1 },
      files: { n: 7, successRate: 1, meanReward: 1 },
      search: { n: 6, successRate: 1, meanReward: 1 },
      text: { n: 11, successRate: 1, meanReward: 1 },
    });
  });

  it('runs exactly the tasks of --tasks, and prints the summary as JSON with --json', ({
    cli,
    needs,
    tempDir,
  }) => {
    needs(noBwrap);
    const out = join(tempDir('run'), 'some');
    const result = cli.run(['run', 'demo/bash', '--tasks', '0-4,7', '--out', out, '--json']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(episodesOf(out).map((episode) => episode.index)).toEqual([0, 1, 2, 3, 4, 7]);
    expect(JSON.parse(result.stdout)).toEqual(summaryOf(out));
    expect(summaryOf(out)).toMatchObject({ n: 6, solved: 6 });
  });

  it('gives the same rewards per task with --concurrency 2 as with one worker', ({ cli, needs, tempDir }) => {
    needs(noBwrap);
    const out = join(tempDir('run'), 'parallel');
    const result = cli.run(['run', 'demo/bash', '--concurrency', '2', '--out', out]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const episodes = episodesOf(out);
    expect(episodes).toHaveLength(30);
    expect(rewardsByTask(episodes)).toEqual(rewardsByTask(episodesOf(fullRun)));
    expect(summaryOf(out)).toMatchObject({ n: 30, solved: 30, complete: true });
  });

  it('resumes a run whose log ends in a torn line: no duplicates, the torn episode played again', ({
    cli,
    needs,
    tempDir,
  }) => {
    needs(noBwrap);
    const out = join(tempDir('run'), 'torn');
    mkdirSync(out);
    const lines = readFileSync(join(fullRun, 'episodes.jsonl'), 'utf8').split('\n');
    const head = `${lines.slice(0, 3).join('\n')}\n`;
    writeFileSync(join(out, 'episodes.jsonl'), `${head}${lines[3]!.slice(0, 40)}`);

    // Without --resume, an existing log is never touched.
    const refused = cli.run(['run', 'demo/bash', '--out', out]);
    expectOneLineError(refused, /already holds episodes: pass --resume/);
    expect(readFileSync(join(out, 'episodes.jsonl'), 'utf8')).toBe(`${head}${lines[3]!.slice(0, 40)}`);

    const resumed = cli.run(['run', 'demo/bash', '--out', out, '--resume']);
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    const text = readFileSync(join(out, 'episodes.jsonl'), 'utf8');
    expect(text.startsWith(head)).toBe(true);
    const episodes = episodesOf(out);
    expect(episodes).toHaveLength(30);
    expect(text.split('\n').filter((line) => line !== '')).toHaveLength(30);
    expect(new Set(episodes.map((episode) => episode.taskId)).size).toBe(30);
    expect(episodes[3]!.index).toBe(3);
    expect(summaryOf(out)).toMatchObject({ n: 30, solved: 30, complete: true });

    // Resuming a finished run plays nothing more.
    const again = cli.run(['run', 'demo/bash', '--out', out, '--resume']);
    expect(again.status).toBe(0);
    expect(readFileSync(join(out, 'episodes.jsonl'), 'utf8')).toBe(text);
  });

  it('resumes a run killed with SIGKILL midway', async ({ cli, needs, tempDir }) => {
    needs(noBwrap);
    const tasks = slowTasks(tempDir('slow-tasks'), 6, 0.4);
    const out = join(tempDir('run'), 'killed');
    const args = ['run', tasks, '--env', 'bash', '--out', out];
    const { child, done } = cli.start(args);
    const owner = ownerOf(child.pid!);
    await waitFor(() => episodesOf(out).length >= 2, 30_000, 'two episodes');
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    const before = episodesOf(out);
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before.length).toBeLessThan(6);

    // The same task file spelled differently is another dataset id: refused, nothing played twice.
    const respelled = cli.run(['run', basename(tasks), '--env', 'bash', '--out', out, '--resume'], {
      cwd: dirname(tasks),
    });
    expectOneLineError(
      respelled,
      /holds episodes of \S+slow\.jsonl, not slow\.jsonl: resume with the same dataset/,
    );
    expect(episodesOf(out)).toEqual(before);

    const resumed = cli.run([...args, '--resume']);
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    const episodes = episodesOf(out);
    expect(episodes.slice(0, before.length)).toEqual(before);
    expect(episodes.map((episode) => episode.taskId).sort()).toEqual(
      Array.from({ length: 6 }, (_, i) => `slow-${i}`),
    );
    expect(episodes.every((episode) => episode.success)).toBe(true);
    expect(summaryOf(out)).toMatchObject({ n: 6, solved: 6, complete: true });
    // What the killed run left behind was reaped by the next one.
    expect(bwrapResidue(owner)).toEqual([]);
  });

  it('stops cleanly on Ctrl-C: exit 3, only complete episodes, an incomplete summary, no sandbox left', async ({
    cli,
    needs,
    tempDir,
  }) => {
    needs(noBwrap);
    const tasks = slowTasks(tempDir('slow-tasks'), 12, 1);
    const out = join(tempDir('run'), 'interrupted');
    const { child, done } = cli.start(['run', tasks, '--env', 'bash', '--out', out]);
    const owner = ownerOf(child.pid!);
    await waitFor(() => episodesOf(out).length >= 1, 30_000, 'an episode');
    child.kill('SIGINT');
    const result = await done;
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(/intercode: interrupted/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const text = readFileSync(join(out, 'episodes.jsonl'), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const episodes = episodesOf(out);
    expect(episodes.length).toBeGreaterThanOrEqual(1);
    expect(episodes.length).toBeLessThan(12);
    expect(episodes.every((episode) => episode.success && episode.error === undefined)).toBe(true);
    const summary = summaryOf(out);
    expect(summary).toMatchObject({ complete: false, n: episodes.length });
    expect(bwrapResidue(owner)).toEqual([]);
  });

  it('replays recorded actions, stopping at reward 1', ({ cli, needs, tempDir }) => {
    needs(noBwrap);
    const dir = tempDir('replay');
    const trajectories = join(dir, 'recorded.jsonl');
    const turn = (action: string) => ({
      action,
      observation: '',
      reward: 0,
      admissible: true,
      durationMs: 0,
    });
    writeFileSync(
      trajectories,
      [
        {
          taskId: 'count-python-files',
          turns: [turn("find /demo/src -type f -name '*.py' | wc -l"), turn('echo never run')],
        },
        {
          taskId: 'write-summary',
          turns: [
            turn('echo wrong'),
            turn('mkdir -p /demo/reports && wc -l < /demo/logs/app.log > /demo/reports/summary.txt'),
            turn('rm -r /demo/reports'),
          ],
        },
      ]
        .map((record) => JSON.stringify(record))
        .join('\n'),
    );
    const out = join(dir, 'run');
    const result = cli.run([
      'run',
      'demo/bash',
      '--agent',
      'replay',
      '--trajectories',
      trajectories,
      '--tasks',
      '0,17',
      '--out',
      out,
    ]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const [first, second] = episodesOf(out);
    expect(first).toMatchObject({ taskId: 'count-python-files', success: true, turnsTaken: 1 });
    expect(first!.turns.map((t) => t.action)).toEqual(["find /demo/src -type f -name '*.py' | wc -l"]);
    expect(second).toMatchObject({ taskId: 'write-summary', success: true, turnsTaken: 2, reward: 1 });
    expect(second!.turns.map((t) => t.action)).toEqual([
      'echo wrong',
      'mkdir -p /demo/reports && wc -l < /demo/logs/app.log > /demo/reports/summary.txt',
    ]);
    expect(second!.turns[0]!.reward).toBeLessThan(1);
    expect(second!.turns[0]!.admissible).toBe(true);
    expect(summaryOf(out)).toMatchObject({ agent: 'replay', n: 2, solved: 2, meanTurns: 1.5 });

    // Without --tasks, only the tasks the trajectories hold are played, and the run says so.
    const recordedOnly = join(dir, 'recorded-only');
    const narrowed = cli.run([
      'run',
      'demo/bash',
      '--agent',
      'replay',
      '--trajectories',
      trajectories,
      '--out',
      recordedOnly,
    ]);
    expect(narrowed.status).toBe(0);
    expect(narrowed.stderr).toBe(
      'intercode: replaying the 2 of 30 tasks the --trajectories file holds (--tasks to choose others)\n',
    );
    expect(
      episodesOf(recordedOnly)
        .map((episode) => episode.taskId)
        .sort(),
    ).toEqual(['count-python-files', 'write-summary']);
  });
});
