import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { CliRunner } from '../support/cli-runner.js';
import { jsonLines } from '../support/json-lines.js';

// Run directories for the viewer's browser tests, written by the real CLI (`intercode run`); the
// hostile run starts from a real run's lines and changes or adds some.

/** What the tests read of a line of `episodes.jsonl`. */
export interface RecordLine {
  taskId: string;
  index: number;
  query: string;
  gold?: unknown;
  turns: { action: string; observation: string; reward: number; details?: ScoreDetails }[];
  success: boolean;
  truncated: boolean;
  [field: string]: unknown;
}

/** What a scored turn's `details` hold that the tests read (docs/reference/episodes-jsonl.md). */
export interface ScoreDetails {
  goldOutput?: string | null;
  agentChanges?: { path: string; status: string }[];
  evalChanges?: { path: string; status: string }[];
}

/** The records of a run directory. */
export function recordsOf(directory: string): RecordLine[] {
  return jsonLines<RecordLine>(join(directory, 'episodes.jsonl'));
}

function run(cli: CliRunner, args: readonly string[], timeoutMs = 120_000): void {
  const result = cli.run(['run', ...args, '--json'], { timeoutMs });
  expect(result.status, `intercode run ${args.join(' ')}: ${result.stderr}`).toBe(0);
}

/** Two runs of demo/sql (41 tasks, SQLite) that disagree on some episodes. */
export interface DemoRuns {
  /** The gold agent: every episode solved in one turn. */
  readonly gold: string;
  /**
   * The replay agent with at most 3 turns on actions made from the gold run: by task index (mod 5)
   * one wrong query (failed), two wrong ones then the gold (solved at turn 3), four wrong ones
   * (truncated at 3 turns), or the gold (solved at turn 1).
   */
  readonly replay: string;
}

/** The replay run's actions for a task, from its gold (see `DemoRuns.replay`). */
function replayActions(index: number, gold: string): string[] {
  switch (index % 5) {
    case 0:
      return ['SELECT 1'];
    case 1:
      return ['SELECT name FROM sqlite_master', 'SELECT 2', gold];
    case 2:
      return ['SELECT 1', 'SELECT 2', 'SELECT 3', 'SELECT 4'];
    default:
      return [gold];
  }
}

/** Plays the two demo/sql runs into `<dir>/gold` and `<dir>/replay`. */
export function playDemoRuns(cli: CliRunner, dir: string): DemoRuns {
  const gold = join(dir, 'gold');
  const replay = join(dir, 'replay');
  run(cli, ['demo/sql', '--agent', 'gold', '--out', gold]);
  const trajectories = join(dir, 'replay-trajectories.jsonl');
  const lines = recordsOf(gold).map((record) =>
    JSON.stringify({
      taskId: record.taskId,
      turns: replayActions(record.index, String(record.gold)).map((action) => ({ action })),
    }),
  );
  writeFileSync(trajectories, `${lines.join('\n')}\n`);
  run(cli, [
    'demo/sql',
    '--agent',
    'replay',
    '--trajectories',
    trajectories,
    '--max-turns',
    '3',
    '--out',
    replay,
  ]);
  return { gold, replay };
}

/**
 * demo/bash tasks that change files (a new folder with a file, a file edited, files deleted): the
 * gold agent's records hold both sides' file changes.
 */
export const FILE_TASKS = '17-18,20';

/** Plays the demo/bash tasks `FILE_TASKS` with the gold agent (bwrap sandboxes) into `<dir>/bash-files`. */
export function playBashFileRun(cli: CliRunner, dir: string): string {
  const out = join(dir, 'bash-files');
  run(cli, ['demo/bash', '--agent', 'gold', '--tasks', FILE_TASKS, '--out', out], 240_000);
  return out;
}

/** spider/dev has 1,034 tasks: 10 samples each make the large run. */
export const BIG_RUN_EPISODES = 10_340;

/** Plays spider/dev with the gold agent, 10 samples per task, on SQLite, into `<dir>/spider-dev-x10`. */
export function playBigRun(cli: CliRunner, dir: string): string {
  const out = join(dir, 'spider-dev-x10');
  run(cli, ['spider/dev', '--agent', 'gold', '--samples', '10', '--out', out], 600_000);
  return out;
}

/** The hostile strings a stranger's run directory may hold. */
export const HOSTILE = {
  script: '<script>alert(1)</script>',
  image: '<img src=x onerror=alert(1)>',
  link: 'javascript:alert(1)',
  ansi: '\u001b[31mred\u001b[0m',
} as const;

/** Bytes of the large observation. */
export const LARGE_OBSERVATION_BYTES = 1024 * 1024;

/** What the hostile run holds. */
export interface HostileRun {
  readonly directory: string;
  /** Valid episodes (the copied ones and the hostile ones). */
  readonly episodes: number;
  /** Ids of the hostile episodes (their position among the valid ones). */
  readonly scriptEpisode: number;
  readonly largeEpisode: number;
  /** Lines the viewer must skip, and words of the reason it must give for each. */
  readonly skipped: readonly RegExp[];
}

/**
 * A copy of a real run (`source`) with hostile episodes appended (markup, a `javascript:` link and
 * ANSI escapes in the query, actions, observations and gold; a 1 MB observation), then malformed
 * lines: invalid JSON, a newer schema version, a record missing required fields, and a torn last line
 * without its newline (a run killed while writing it).
 */
export function writeHostileRun(source: string, dir: string): HostileRun {
  const directory = join(dir, 'hostile');
  mkdirSync(directory, { recursive: true });
  const path = join(directory, 'episodes.jsonl');
  copyFileSync(join(source, 'episodes.jsonl'), path);
  const real = recordsOf(source);
  const first = real[0]!;
  const hostile: RecordLine = {
    ...first,
    taskId: `hostile-${HOSTILE.script}`,
    query: `Hostile query ${HOSTILE.script} ${HOSTILE.image} see ${HOSTILE.link}`,
    gold: `SELECT '${HOSTILE.image}'`,
    turns: [
      {
        ...first.turns[0]!,
        action: `SELECT '${HOSTILE.script}', '${HOSTILE.link}'`,
        observation: `${HOSTILE.ansi} ${HOSTILE.image} ${HOSTILE.link}\n`,
      },
    ],
  };
  const large: RecordLine = {
    ...first,
    taskId: 'hostile-large-observation',
    query: 'Hostile too: a task whose observation is 1 MB',
    turns: [{ ...first.turns[0]!, observation: `${'x'.repeat(LARGE_OBSERVATION_BYTES - 4)}end\n` }],
  };
  const { taskId: _taskId, query: _query, ...missingFields } = first;
  const lines = [
    JSON.stringify({ schemaVersion: 1, ...hostile }),
    JSON.stringify({ schemaVersion: 1, ...large }),
    '{"taskId": "not json", "turns": [',
    JSON.stringify({ ...first, schemaVersion: 99 }),
    JSON.stringify(missingFields),
  ];
  appendFileSync(path, `${lines.join('\n')}\n${JSON.stringify(first).slice(0, 40)}`);
  expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(false);
  return {
    directory,
    episodes: real.length + 2,
    scriptEpisode: real.length,
    largeEpisode: real.length + 1,
    skipped: [/JSON/i, /schemaVersion 99|newer/i, /missing|not a valid/i, /incomplete|torn/i],
  };
}

/** A copy of a run still being written: all its episodes but the last, which `appendLast` adds. */
export interface GrowingRun {
  readonly directory: string;
  /** Episodes in the copy before `appendLast`. */
  readonly episodes: number;
  /** Appends the source's last line, as `intercode run` appends a finished episode. */
  appendLast(): void;
}

/** Copies `source`'s `episodes.jsonl` (without `summary.json`: the run is not over) but its last line. */
export function copyGrowingRun(source: string, dir: string): GrowingRun {
  const directory = join(dir, 'growing');
  mkdirSync(directory, { recursive: true });
  const lines = readFileSync(join(source, 'episodes.jsonl'), 'utf8').split('\n').filter(Boolean);
  const last = lines.pop()!;
  const path = join(directory, 'episodes.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return { directory, episodes: lines.length, appendLast: () => appendFileSync(path, `${last}\n`) };
}
