import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { cleanup, tempDir } from '../../datasets/mirror-fixture.js';
import { bwrapResidue } from '../../sandbox/bwrap-residue.js';
import {
  type CliOptions,
  expectOneLineError,
  intercode,
  jsonLines,
  ownerOf,
  startIntercode,
  waitFor,
} from '../cli-fixture.js';

// `intercode run | report | play` end to end: the compiled CLI in a child process, real bwrap
// sandboxes, real files. One cache dir for the file, so the demo file system is built once.
const made: string[] = [];
const cache = tempDir('run-cli-cache', made);
const base: CliOptions = { cache };
let available = false;
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

/** A task file of `count` slow tasks: every gold sleeps, so a run can be stopped midway. */
function slowTasks(count: number, sleep: number): string {
  const file = join(tempDir('slow-tasks', made), 'slow.jsonl');
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ id: `slow-${i}`, query: `slow task ${i}`, gold: `sleep ${sleep}; echo done ${i}` }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

beforeAll(async () => {
  const provider = new BwrapProvider();
  available = (await provider.check()).ok;
  await provider.close();
  if (!available) return;
  fullRun = join(tempDir('run', made), 'gold');
  const result = intercode(['run', 'demo/bash', '--agent', 'gold', '--out', fullRun], base);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
}, 120_000);

afterAll(() => cleanup(made));

describe('intercode run', () => {
  it('plays every demo/bash gold to reward 1 and writes episodes.jsonl and summary.json (DESIGN §8)', (context) => {
    if (!available) context.skip();
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

  it('runs exactly the tasks of --tasks, and prints the summary as JSON with --json', (context) => {
    if (!available) context.skip();
    const out = join(tempDir('run', made), 'some');
    const result = intercode(['run', 'demo/bash', '--tasks', '0-4,7', '--out', out, '--json'], base);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(episodesOf(out).map((episode) => episode.index)).toEqual([0, 1, 2, 3, 4, 7]);
    expect(JSON.parse(result.stdout)).toEqual(summaryOf(out));
    expect(summaryOf(out)).toMatchObject({ n: 6, solved: 6 });
  });

  it('gives the same rewards per task with --concurrency 2 as with one worker', (context) => {
    if (!available) context.skip();
    const out = join(tempDir('run', made), 'parallel');
    const result = intercode(['run', 'demo/bash', '--concurrency', '2', '--out', out], base);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const episodes = episodesOf(out);
    expect(episodes).toHaveLength(30);
    expect(rewardsByTask(episodes)).toEqual(rewardsByTask(episodesOf(fullRun)));
    expect(summaryOf(out)).toMatchObject({ n: 30, solved: 30, complete: true });
  });

  it('resumes a run whose log ends in a torn line: no duplicates, the torn episode played again', (context) => {
    if (!available) context.skip();
    const out = join(tempDir('run', made), 'torn');
    mkdirSync(out);
    const lines = readFileSync(join(fullRun, 'episodes.jsonl'), 'utf8').split('\n');
    const head = `${lines.slice(0, 3).join('\n')}\n`;
    writeFileSync(join(out, 'episodes.jsonl'), `${head}${lines[3]!.slice(0, 40)}`);

    // Without --resume, an existing log is never touched.
    const refused = intercode(['run', 'demo/bash', '--out', out], base);
    expectOneLineError(refused, /already holds episodes: pass --resume/);
    expect(readFileSync(join(out, 'episodes.jsonl'), 'utf8')).toBe(`${head}${lines[3]!.slice(0, 40)}`);

    const resumed = intercode(['run', 'demo/bash', '--out', out, '--resume'], base);
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
    const again = intercode(['run', 'demo/bash', '--out', out, '--resume'], base);
    expect(again.status).toBe(0);
    expect(readFileSync(join(out, 'episodes.jsonl'), 'utf8')).toBe(text);
  });

  it('resumes a run killed with SIGKILL midway', async (context) => {
    if (!available) context.skip();
    const tasks = slowTasks(6, 0.4);
    const out = join(tempDir('run', made), 'killed');
    const args = ['run', tasks, '--env', 'bash', '--out', out];
    const { child, done } = startIntercode(args, base);
    const owner = ownerOf(child.pid!);
    await waitFor(() => episodesOf(out).length >= 2, 30_000, 'two episodes');
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    const before = episodesOf(out);
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before.length).toBeLessThan(6);

    // The same task file spelled differently is another dataset id: refused, nothing played twice.
    const respelled = intercode(['run', basename(tasks), '--env', 'bash', '--out', out, '--resume'], {
      ...base,
      cwd: dirname(tasks),
    });
    expectOneLineError(
      respelled,
      /holds episodes of \S+slow\.jsonl, not slow\.jsonl: resume with the same dataset/,
    );
    expect(episodesOf(out)).toEqual(before);

    const resumed = intercode([...args, '--resume'], base);
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

  it('stops cleanly on Ctrl-C: exit 3, only complete episodes, an incomplete summary, no sandbox left', async (context) => {
    if (!available) context.skip();
    const tasks = slowTasks(12, 1);
    const out = join(tempDir('run', made), 'interrupted');
    const { child, done } = startIntercode(['run', tasks, '--env', 'bash', '--out', out], base);
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

  it('replays recorded actions, stopping at reward 1', (context) => {
    if (!available) context.skip();
    const dir = tempDir('replay', made);
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
    const result = intercode(
      [
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
      ],
      base,
    );
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
    const narrowed = intercode(
      ['run', 'demo/bash', '--agent', 'replay', '--trajectories', trajectories, '--out', recordedOnly],
      base,
    );
    expect(narrowed.status).toBe(0);
    expect(narrowed.stderr).toBe(
      'intercode: replaying the 2 of 30 tasks the trajectories hold (--tasks to choose others)\n',
    );
    expect(
      episodesOf(recordedOnly)
        .map((episode) => episode.taskId)
        .sort(),
    ).toEqual(['count-python-files', 'write-summary']);
  });
});

describe('intercode run with bad input', () => {
  it('fails in one line, exit 1, before creating any run directory', (context) => {
    if (!available) context.skip();
    const dir = tempDir('bad-input', made);
    const malformedJson = join(dir, 'malformed.json');
    writeFileSync(malformedJson, '[{"query": "a", "gold": "ls"},');
    const badJsonl = join(dir, 'bad.jsonl');
    writeFileSync(badJsonl, '{"query": "a", "gold": "ls"}\n{"query": }\n');
    const good = join(dir, 'good.json');
    writeFileSync(good, '[{"query": "a", "gold": "ls"}]');
    const emptyMirror = tempDir('empty-mirror', made);
    const freshCache = tempDir('fresh-cache', made);
    const cases: { args: string[]; error: RegExp; options?: Partial<CliOptions> }[] = [
      { args: ['nope/none'], error: /unknown dataset "nope\/none" \(known: .*demo\/bash/ },
      { args: ['demo/bash', '--tasks', '999'], error: /--tasks: task index 999 is out of range 0-29/ },
      { args: [join(dir, 'missing.json'), '--env', 'bash'], error: /missing\.json does not exist/ },
      { args: [malformedJson, '--env', 'bash'], error: /malformed\.json: malformed JSON at line 1/ },
      { args: [badJsonl, '--env', 'bash'], error: /bad\.jsonl: line 2 is not valid JSON/ },
      { args: [good], error: /good\.json needs an environment: pass --env/ },
      {
        args: ['nl2bash/fs1'],
        error: /mirror \S+ has no data\/nl2bash\/nl2bash_fs_1\.json/,
        options: { env: { INTERCODE_DATA_MIRROR: emptyMirror }, cache: freshCache },
      },
      { args: ['demo/bash', '--agent', 'replay'], error: /--agent replay needs --trajectories FILE/ },
      {
        args: ['demo/bash', '--agent', 'replay', '--trajectories', join(dir, 'none.jsonl')],
        error: /trajectory file \S+none\.jsonl: cannot read it/,
      },
      {
        args: ['demo/bash', '--concurrency', '0'],
        error: /--concurrency must be a positive integer, got "0"/,
      },
      {
        args: ['demo/bash', '--agent', 'robot'],
        error:
          /option '--agent <agent>' argument 'robot' is invalid\. Allowed choices are gold, replay, human/,
      },
      {
        args: ['demo/bash', '--trajectories', 'x.json'],
        error: /--trajectories applies to --agent replay only/,
      },
      {
        args: ['demo/bash', '--backend', 'docker', '--image', 'host'],
        error:
          /image "host" is not available on the docker backend \(known: debian, debian:<profile>, docker:<name>\)/,
      },
      {
        args: ['demo/bash', '--image', 'debian:nosuch'],
        error: /image "debian:nosuch": unknown image profile "nosuch"/,
      },
      {
        args: ['demo/ctf', '--compat', 'upstream'],
        error: /--compat: the ctf environment has no upstream mode/,
      },
      { args: ['demo/bash', '--bogus'], error: /unknown option '--bogus' \(run with --help for usage\)/ },
    ];
    for (const { args, error, options } of cases) {
      const cwd = tempDir('cwd', made);
      const out = join(dir, 'out');
      const withOut = intercode(['run', ...args, '--out', out], { ...base, ...options, cwd });
      expect({ args, stderr: withOut.stderr }).toMatchObject({ args, stderr: expect.stringMatching(error) });
      expectOneLineError(withOut);
      expect(withOut.stdout).toBe('');
      expect(existsSync(out)).toBe(false);
      // Without --out, nothing appears under the working directory either (no runs/ folder).
      const withoutOut = intercode(['run', ...args], { ...base, ...options, cwd });
      expectOneLineError(withoutOut, error);
      expect(readdirSync(cwd)).toEqual([]);
    }
    expect(readdirSync(freshCache).filter((name) => name !== 'datasets')).toEqual([]);
  });

  it('exits 2 naming what to install when the sandbox tools are missing, before creating the run directory', () => {
    const out = join(tempDir('no-tools', made), 'out');
    const result = intercode(['run', 'demo/bash', '--out', out], {
      ...base,
      env: { PATH: tempDir('empty-path', made) },
    });
    expect(result.stderr).toMatch(
      /^intercode: the bwrap sandbox cannot run here: bubblewrap: bwrap not found \(fix: apt-get install -y bubblewrap\)[^\n]*\n$/,
    );
    expect(result.status).toBe(2);
    expect(existsSync(out)).toBe(false);
  });
});

describe('intercode report', () => {
  it('prints overall and per-group metrics of a run, and a combined block for several', (context) => {
    if (!available) context.skip();
    const single = intercode(['report', fullRun], base);
    expect(single.stderr).toBe('');
    expect(single.status).toBe(0);
    const lines = single.stdout.split('\n');
    expect(lines[0]).toBe(fullRun);
    expect(lines[1]).toMatch(/^group\s+n\s+solved\s+success\s+mean reward\s+turns\s+error$/);
    expect(single.stdout).toMatch(/\nall\s+30\s+30\s+100\.0%\s+1\.000\s+1\.00\s+0\.0%\n/);
    expect(single.stdout).toMatch(/\ntext\s+11\s+11\s+100\.0%/);
    expect(single.stdout).toMatch(/\narchive\s+4\s+4\s+100\.0%/);
    expect(single.stdout).not.toContain('combined');

    // A second run: two failed episodes (a skipped task and a wrong answer).
    const other = join(tempDir('run', made), 'other');
    const trajectories = join(tempDir('replay', made), 'wrong.jsonl');
    writeFileSync(
      trajectories,
      `${JSON.stringify({ taskId: 'count-errors', turns: [{ action: 'echo no idea' }, { action: 'skip' }] })}\n${JSON.stringify({ taskId: 'list-bundle', turns: [{ action: 'ls /nope' }] })}\n`,
    );
    const run = intercode(
      [
        'run',
        'demo/bash',
        '--agent',
        'replay',
        '--trajectories',
        trajectories,
        '--tasks',
        '6,24',
        '--out',
        other,
      ],
      base,
    );
    expect(run.status).toBe(0);
    const both = intercode(['report', fullRun, other], base);
    expect(both.status).toBe(0);
    expect(both.stdout).toContain(`\n${other}\n`);
    expect(both.stdout).toMatch(/\ncombined \(2 runs\)\n/);
    const combined = both.stdout.slice(both.stdout.indexOf('combined'));
    expect(combined).toMatch(/\nall\s+32\s+30\s+93\.8%/);
    expect(combined).toMatch(/\ntext\s+12\s+11\s+91\.7%/);

    const json = intercode(['report', fullRun, other, '--json'], base);
    expect(json.status).toBe(0);
    const report = JSON.parse(json.stdout) as {
      runs: {
        directory: string;
        overall: { n: number; errorRate: number };
        byGroup: Record<string, unknown>;
      }[];
      combined: { overall: { n: number; solved: number } };
    };
    expect(report.runs.map((r) => r.directory)).toEqual([fullRun, other]);
    expect(report.runs[0]!.overall).toMatchObject({ n: 30, solved: 30, successRate: 1 });
    expect(Object.keys(report.runs[0]!.byGroup)).toEqual(['archive', 'checksum', 'files', 'search', 'text']);
    // count-errors: `echo no idea` (admissible) then skip; list-bundle: `ls /nope` fails.
    expect(report.runs[1]!.overall).toMatchObject({ n: 2, solved: 0, errorRate: 0.5 });
    expect(report.combined.overall).toMatchObject({ n: 32, solved: 30 });
    const alone = JSON.parse(intercode(['report', fullRun, '--json'], base).stdout) as Record<
      string,
      unknown
    >;
    expect(alone.combined).toBeUndefined();
  });

  it('fails in one line for a folder that is not a run directory', () => {
    const dir = tempDir('not-a-run', made);
    expectOneLineError(intercode(['report', dir], base), /is not a run directory \(no episodes\.jsonl\)/);
    writeFileSync(join(dir, 'episodes.jsonl'), '{oops\n');
    expectOneLineError(intercode(['report', dir], base), /episodes\.jsonl: line 1 is not valid JSON/);
  });
});

describe('intercode play', () => {
  it('plays the gold and submit typed on stdin: reward 1 and its parts', (context) => {
    if (!available) context.skip();
    const result = intercode(['play', 'demo/bash', '--task', '0'], {
      ...base,
      input: "find /demo/src -type f -name '*.py' | wc -l\nsubmit\n",
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('How many Python (.py) files');
    expect(result.stdout).toContain('5\n');
    expect(result.stdout).toMatch(
      /\nreward 1\n {2}file_diff: 0\.33\n {2}file_changes: 0\.33\n {2}answer_similarity: 0\.33\n/,
    );
    expect(result.stdout).toContain("gold: find /demo/src -type f -name '*.py' | wc -l\n");
  });

  it('scores the episode at end of input without a submit', (context) => {
    if (!available) context.skip();
    const result = intercode(['play', 'demo/bash', '--task', '0'], { ...base, input: 'echo no idea\n' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/\nreward 0\.67\d* \(scored without a submit\)\n/);
    expect(result.stdout).toMatch(/ {2}answer_similarity: 0\n/);
  });

  it('fails in one line for a task index out of range', () => {
    expectOneLineError(
      intercode(['play', 'demo/bash', '--task', '99'], base),
      /--task: task index 99 is out of range 0-29 for demo\/bash/,
    );
  });
});
