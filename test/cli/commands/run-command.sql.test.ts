import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { expectOneLineError } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';
import { jsonLines } from '../../support/json-lines.js';
import { mirrorMissing } from '../../support/missing-components.js';
import { MIRROR } from '../../support/project.js';

// `intercode run` on SQL datasets end to end: the compiled CLI in a child process, the SQLite
// engine, Spider from the local mirror. One cache dir for the file, so the databases are built once.
const SLOW = { timeoutMs: 120_000 };
const RECORDED = join(MIRROR, 'data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json');

interface Turn {
  action: string;
  observation: string;
  reward: number;
  admissible: boolean;
}
interface Episode {
  index: number;
  turns: Turn[];
  success: boolean;
  maxReward: number;
  group?: string;
}

const episodesOf = (dir: string) => jsonLines<Episode>(join(dir, 'episodes.jsonl'));
const summaryOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Record<string, unknown>;

describe('intercode run on SQL datasets', () => {
  it('plays the gold of spider/dev tasks 0-19 on SQLite: 20/20 solved, engine and hardness groups in the summary', ({
    cli,
    tempDir,
  }) => {
    const out = join(tempDir('sql-gold'), 'run');
    const result = cli.run(['run', 'spider/dev', '--tasks', '0-19', '--out', out], SLOW);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^all\s+20\s+20\s+100\.0%/m);
    const episodes = episodesOf(out);
    expect(episodes.map((episode) => episode.index).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    expect(episodes.every((episode) => episode.success && episode.maxReward === 1)).toBe(true);
    const summary = summaryOf(out);
    expect(summary).toMatchObject({
      dataset: 'spider/dev',
      env: 'sql',
      agent: 'gold',
      engine: 'sqlite',
      n: 20,
      solved: 20,
    });
    const byGroup = summary.byGroup as Record<string, { n: number; successRate: number }>;
    expect(Object.keys(byGroup).every((group) => ['easy', 'medium', 'hard', 'extra'].includes(group))).toBe(
      true,
    );
    expect(Object.keys(byGroup).length).toBeGreaterThanOrEqual(3);
    expect(Object.values(byGroup).reduce((total, group) => total + group.n, 0)).toBe(20);
    expect(Object.values(byGroup).every((group) => group.successRate === 1)).toBe(true);
    expect(byGroup.medium?.n).toBe(episodes.filter((episode) => episode.group === 'medium').length);
  });

  it('runs with --handicap', ({ cli, tempDir }) => {
    const out = join(tempDir('sql-handicap'), 'run');
    const result = cli.run(
      ['run', 'spider/dev', '--tasks', '0-2', '--handicap', '--json', '--out', out],
      SLOW,
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ n: 3, solved: 3, engine: 'sqlite' });
  });

  it('replays the recorded GPT-4 Try Again trajectories (tasks 0-29): every episode has turns, SHOW/DESCRIBE work', ({
    cli,
    tempDir,
    needs,
  }) => {
    needs(mirrorMissing(RECORDED));
    const out = join(tempDir('sql-replay'), 'run');
    const result = cli.run(
      [
        'run',
        'spider/dev',
        '--agent',
        'replay',
        '--trajectories',
        RECORDED,
        '--tasks',
        '0-29',
        '--max-turns',
        '10',
        '--concurrency',
        '2',
        '--out',
        out,
      ],
      SLOW,
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const episodes = episodesOf(out);
    expect(episodes).toHaveLength(30);
    for (const episode of episodes) {
      expect(episode.turns.length).toBeGreaterThan(0);
      expect(episode.turns.length).toBeLessThanOrEqual(10);
    }
    expect(summaryOf(out)).toMatchObject({ agent: 'replay', engine: 'sqlite', n: 30 });
    const turns = episodes.flatMap((episode) => episode.turns);
    const introspection = turns.filter((turn) => /^(SHOW TABLES|DESCRIBE \w+)$/i.test(turn.action.trim()));
    expect(introspection.length).toBeGreaterThan(10);
    for (const turn of introspection) {
      expect(turn.observation).toMatch(
        /^(Tables_in_\w+|Field \| Type \| Null \| Key \| Default \| Extra)\n|^Error executing query: Table '/,
      );
    }
    expect(introspection.filter((turn) => turn.admissible).length).toBeGreaterThan(10);
  });
});

describe('intercode run on SQL datasets: bad input', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'an unknown engine',
      ['run', 'spider/dev', '--engine', 'nope'],
      /option '--engine <engine>' argument 'nope' is invalid\. Allowed choices are sqlite, mysql, postgres/,
    ],
    [
      '--db-url with the sqlite engine',
      ['run', 'spider/dev', '--engine', 'sqlite', '--db-url', 'mysql://x'],
      /--db-url applies to the mysql and postgres engines/,
    ],
    [
      '--engine on a Bash dataset',
      ['run', 'demo/bash', '--engine', 'sqlite'],
      /--engine: it applies to the sql environment only, not bash/,
    ],
    [
      '--handicap on a Bash dataset',
      ['run', 'demo/bash', '--handicap'],
      /--handicap: it applies to the sql environment only/,
    ],
    [
      '--image on a SQL dataset',
      ['run', 'spider/dev', '--image', 'debian'],
      /--image: sql does not run in sandboxes/,
    ],
    [
      '--backend on a SQL dataset',
      ['run', 'spider/dev', '--backend', 'docker'],
      /--backend: sql does not run in sandboxes/,
    ],
    [
      '--compat on a SQL dataset',
      ['run', 'spider/dev', '--compat', 'upstream'],
      /--compat: sql does not run in sandboxes/,
    ],
    [
      'a --db-url of the other engine',
      ['run', 'spider/dev', '--engine', 'postgres', '--db-url', 'mysql://u@localhost'],
      /--db-url: the postgres engine takes postgres:\/\/ or postgresql:\/\/ URLs, not mysql:\/\//,
    ],
  ];
  for (const [what, args, message] of cases) {
    it(`refuses ${what}: exit 1, one line, no run directory, nothing downloaded`, ({ cli, tempDir }) => {
      const dir = tempDir('sql-bad');
      const out = join(dir, 'run');
      const emptyCache = join(dir, 'cache');
      const result = cli.run([...args, '--tasks', '0-1', '--out', out], { ...SLOW, cache: emptyCache });
      expectOneLineError(result, message);
      expect(result.stdout).toBe('');
      expect(existsSync(out)).toBe(false);
      expect(existsSync(emptyCache) ? readdirSync(emptyCache) : []).toEqual([]);
    });
  }
});
