import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { expectOneLineError } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';
import { jsonLines } from '../../support/json-lines.js';
import { sqlServerMissing } from '../../support/missing-components.js';
import { ownerOf } from '../../support/owner-of.js';
import { waitFor } from '../../support/wait-for.js';

// What `intercode run` does when its database server is unreachable or dies in the middle of a run.
const SLOW = { timeoutMs: 120_000 };
const noMysql = await sqlServerMissing('mysql');

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
  it('refuses a --db-url that cannot be reached with one line, before creating the run directory', ({
    cli,
    needs,
    tempDir,
  }) => {
    needs(noMysql);
    const out = join(tempDir('bad-url'), 'run');
    const result = cli.run(
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
      SLOW,
    );
    expect(result.stderr).toMatch(/^intercode: [^\n]+\n$/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.status).toBe(2);
    expect(() => readdirSync(out)).toThrow();
  });

  it('refuses a malformed --db-url as a usage error', ({ cli, tempDir }) => {
    const out = join(tempDir('malformed-url'), 'run');
    expectOneLineError(
      cli.run(['run', 'spider/dev', '--engine', 'postgres', '--db-url', 'not a url', '--out', out], SLOW),
    );
  });

  it('stops cleanly when the server dies mid-run, keeps every finished episode, and resumes after', async ({
    cli,
    needs,
    tempDir,
  }) => {
    needs(noMysql);
    const out = join(tempDir('server-dies'), 'run');
    const log = join(out, 'episodes.jsonl');
    const run = cli.start(['run', 'spider/dev', '--engine', 'mysql', '--tasks', '0-299', '--out', out]);
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

    const resumed = cli.run(
      ['run', 'spider/dev', '--engine', 'mysql', '--tasks', '0-299', '--out', out, '--resume', '--json'],
      SLOW,
    );
    expect(resumed.status).toBe(0);
    const final = jsonLines<{ taskId: string; error?: string }>(log);
    expect(final).toHaveLength(300);
    expect(new Set(final.map((episode) => episode.taskId)).size).toBe(300);
    expect(final.filter((episode) => episode.error !== undefined)).toEqual([]);
    expect((JSON.parse(resumed.stdout) as { complete: boolean; solved: number }).complete).toBe(true);
  });
});
