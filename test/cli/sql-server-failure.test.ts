import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSqlEngines } from '../../src/sql/server/check-sql-engines.js';
import { cleanup, tempDir } from '../datasets/mirror-fixture.js';
import {
  type CliOptions,
  expectOneLineError,
  intercode,
  jsonLines,
  ownerOf,
  startIntercode,
  waitFor,
} from './cli-fixture.js';

// What `intercode run` does when its database server is unreachable or dies in the middle of a run.
const made: string[] = [];
const cache = tempDir('sql-failure-cache', made);
const base: CliOptions = { cache, timeoutMs: 120_000 };
const mysqlReady =
  (await checkSqlEngines()).find((item) => item.name.startsWith('mysql engine'))?.ok === true;

afterAll(() => cleanup(made));

/** Pids of processes whose command line mentions `text`. */
function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(text)) pids.push(Number(name));
    } catch {
      // Gone.
    }
  }
  return pids;
}

describe('SQL server failures', () => {
  it('refuses a --db-url that cannot be reached with one line, before creating the run directory', (context) => {
    if (!mysqlReady) context.skip();
    const out = join(tempDir('bad-url', made), 'run');
    const result = intercode(
      [
        'run',
        'spider/dev',
        '--engine',
        'mysql',
        '--db-url',
        'mysql://nobody:wrong@127.0.0.1:1/none',
        '--out',
        out,
      ],
      base,
    );
    expect(result.stderr).toMatch(/^intercode: [^\n]+\n$/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.status).toBe(2);
    expect(() => readdirSync(out)).toThrow();
  });

  it('refuses a malformed --db-url as a usage error', () => {
    const out = join(tempDir('malformed-url', made), 'run');
    expectOneLineError(
      intercode(['run', 'spider/dev', '--engine', 'postgres', '--db-url', 'not a url', '--out', out], base),
    );
  });

  it('stops cleanly when the server dies mid-run, keeps every finished episode, and resumes after', async (context) => {
    if (!mysqlReady) context.skip();
    const out = join(tempDir('server-dies', made), 'run');
    const log = join(out, 'episodes.jsonl');
    const run = startIntercode(
      ['run', 'spider/dev', '--engine', 'mysql', '--tasks', '0-299', '--out', out],
      base,
    );
    await waitFor(() => jsonLines(log).length >= 20, 60_000, '20 finished episodes');
    const owner = ownerOf(run.child.pid!);
    const servers = processesMentioning(owner).filter((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('/usr/sbin/mariadbd'),
    );
    expect(servers.length).toBeGreaterThan(0);
    for (const pid of servers) process.kill(pid, 'SIGKILL');
    const result = await run.done;
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^intercode: stopped early: [^\n]+\n$/m);
    const episodes = jsonLines<{ taskId: string; success: boolean; error?: string }>(log);
    const solved = episodes.filter((episode) => episode.error === undefined);
    expect(solved.length).toBeGreaterThanOrEqual(20);
    expect(solved.every((episode) => episode.success)).toBe(true);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { complete: boolean };
    expect(summary.complete).toBe(false);
    expect(processesMentioning(owner)).toEqual([]);

    const resumed = intercode(
      ['run', 'spider/dev', '--engine', 'mysql', '--tasks', '0-299', '--out', out, '--resume', '--json'],
      base,
    );
    expect(resumed.status).toBe(0);
    const final = jsonLines<{ taskId: string; error?: string }>(log);
    expect(final).toHaveLength(300);
    expect(new Set(final.map((episode) => episode.taskId)).size).toBe(300);
    expect(final.filter((episode) => episode.error !== undefined)).toEqual([]);
    expect((JSON.parse(resumed.stdout) as { complete: boolean; solved: number }).complete).toBe(true);
  });
});
