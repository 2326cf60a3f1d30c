import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { expectOneLineError } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// `intercode report` on real runs: a gold run of demo/bash made once for the file with the compiled
// CLI (real bwrap sandboxes), and a replayed run with failed episodes.
const noBwrap = await bwrapMissing();
/** The full gold run of demo/bash. */
let fullRun = '';

it.beforeAll(async ({ cli, fileTempDir }) => {
  if (noBwrap) return;
  fullRun = join(fileTempDir('run'), 'gold');
  const result = cli.run(['run', 'demo/bash', '--agent', 'gold', '--out', fullRun]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
}, 120_000);

describe('intercode report', () => {
  it('prints overall and per-group metrics of a run, and a combined block for several', ({
    cli,
    needs,
    tempDir,
  }) => {
    needs(noBwrap);
    const single = cli.run(['report', fullRun]);
    expect(single.stderr).toBe('');
    expect(single.status).toBe(0);
    const lines = single.stdout.split('\n');
    expect(lines[0]).toBe(fullRun);
    expect(lines[1]).toBe('demo/bash · agent gold · 10 turns');
    expect(lines[2]).toMatch(
      /^group\s+n\s+solved\s+success\s+first turn\s+mean reward\s+turns\s+error\s+failed$/,
    );
    expect(single.stdout).toMatch(/\nall\s+30\s+30\s+100\.0%\s+100\.0%\s+1\.000\s+1\.00\s+0\.0%\s+0\n/);
    expect(single.stdout).toMatch(/\ntext\s+11\s+11\s+100\.0%/);
    expect(single.stdout).toMatch(/\narchive\s+4\s+4\s+100\.0%/);
    expect(single.stdout).not.toContain('combined');

    // A second run: two failed episodes (a skipped task and a wrong answer).
    const other = join(tempDir('run'), 'other');
    const trajectories = join(tempDir('replay'), 'wrong.jsonl');
    writeFileSync(
      trajectories,
      `${JSON.stringify({ taskId: 'count-errors', turns: [{ action: 'echo no idea' }, { action: 'skip' }] })}\n${JSON.stringify({ taskId: 'list-bundle', turns: [{ action: 'ls /nope' }] })}\n`,
    );
    const run = cli.run([
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
    ]);
    expect(run.status).toBe(0);
    const both = cli.run(['report', fullRun, other]);
    expect(both.status).toBe(0);
    expect(both.stdout).toContain(`\n${other}\n`);
    expect(both.stdout).toMatch(/\ncombined \(2 runs\)\n/);
    const combined = both.stdout.slice(both.stdout.indexOf('combined'));
    expect(combined).toMatch(/\nall\s+32\s+30\s+93\.8%/);
    expect(combined).toMatch(/\ntext\s+12\s+11\s+91\.7%/);

    const json = cli.run(['report', fullRun, other, '--json']);
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
    const alone = JSON.parse(cli.run(['report', fullRun, '--json']).stdout) as Record<string, unknown>;
    expect(alone.combined).toBeUndefined();
  });

  it('fails in one line for a folder that is not a run directory', ({ cli, tempDir }) => {
    const dir = tempDir('not-a-run');
    expectOneLineError(cli.run(['report', dir]), /is not a run directory \(no episodes\.jsonl\)/);
    writeFileSync(join(dir, 'episodes.jsonl'), '{oops\n');
    expectOneLineError(cli.run(['report', dir]), /episodes\.jsonl: line 1 is not valid JSON/);
  });
});
