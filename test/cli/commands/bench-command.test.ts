import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { BenchFigure } from '../../../src/harness/bench/bench-figure.js';
import { expectOneLineError } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// `intercode bench` through the compiled CLI: the Bash env's figures measured in real bwrap sandboxes.
const noBwrap = await bwrapMissing();

describe('intercode bench', () => {
  it('measures the Bash env with the gold agent and writes the figures as JSON', ({
    cli,
    needs,
    tempDir,
  }) => {
    needs(noBwrap);
    const file = join(tempDir('bench'), 'bench.json');
    const result = cli.run(['bench', '--only', 'bash', '--samples', '2', '--json', file], {
      timeoutMs: 120_000,
    });
    expect(result.stderr).toBe('');
    const report = JSON.parse(readFileSync(file, 'utf8')) as {
      started: string;
      machine: { cpus: number; node: string; kernel: string };
      figures: BenchFigure[];
    };
    expect(Number.isNaN(Date.parse(report.started))).toBe(false);
    expect(report.machine).toMatchObject({ node: process.version });
    expect(report.machine.cpus).toBeGreaterThan(0);
    const names = report.figures.map((figure) => figure.name);
    expect(names).toEqual([
      'reset',
      'step (gold actions)',
      'score (evaluator compared)',
      'whole gold episode',
      'env construction to first observation',
      'env close',
      // The Bash env forks on bwrap: its fork(8) is measured too (target 20 ms).
      'fork(8) after the gold actions',
      // And what a group rollout pays: the fork, then a first action in every copy (each opens its sandbox).
      'fork(8) and a gold action in each copy',
      // Its warm pool: the spare pair of sandboxes, some MiB.
      'idle warm pool memory',
      'gold episodes per second, concurrency 1',
      'gold episodes per second, concurrency 2',
      // The episodes of tasks the process played before, where the gold cache answers for the gold.
      'whole gold episode, task played before (gold kept)',
      'gold episodes per second, concurrency 2, tasks played before',
    ]);
    for (const figure of report.figures) {
      expect(figure).toMatchObject({ backend: 'bwrap', group: 'bash (demo/bash)' });
      expect(figure.p50).toBeGreaterThan(0);
      expect(figure.p95).toBeGreaterThanOrEqual(figure.p50);
      expect(figure.max).toBeGreaterThanOrEqual(figure.p95);
    }
    const byName = Object.fromEntries(report.figures.map((figure) => [figure.name, figure]));
    expect(byName.reset).toMatchObject({ unit: 'ms', n: 4 });
    expect(byName['whole gold episode']).toMatchObject({
      unit: 'ms',
      n: 4,
      target: { op: '<=', stat: 'p50' },
    });
    expect(byName['gold episodes per second, concurrency 2']).toMatchObject({ unit: 'episodes/s', n: 1 });
    expect(byName['whole gold episode, task played before (gold kept)']).toMatchObject({ unit: 'ms', n: 4 });
    expect(byName['gold episodes per second, concurrency 2, tasks played before']).toMatchObject({
      unit: 'episodes/s',
      n: 1,
    });
    // Five new envs at least, each built to its first observation and closed after an episode.
    expect(byName['env construction to first observation']).toMatchObject({
      unit: 'ms',
      n: 5,
      target: { op: '<=', value: 200, stat: 'p50' },
    });
    expect(byName['env close']).toMatchObject({ unit: 'ms', n: 5, target: { op: '<=', value: 100 } });
    // The copies open at their first action: the fork with those actions takes at least the fork.
    expect(byName['fork(8) and a gold action in each copy']).toMatchObject({ unit: 'ms', n: 4 });
    expect(byName['fork(8) and a gold action in each copy']!.p50).toBeGreaterThanOrEqual(
      byName['fork(8) after the gold actions']!.p50,
    );
    // A whole episode takes at least its reset, step and score.
    expect(byName['whole gold episode']!.mean).toBeGreaterThanOrEqual(byName.reset!.mean);
    // The table names every figure; the exit code says whether every target was met (timing varies
    // on a busy machine, so either outcome is accepted as long as they agree).
    for (const name of names) expect(result.stdout).toContain(`bash (demo/bash): ${name}`);
    const failed = report.figures.some((figure) => figure.pass === false);
    expect(result.status).toBe(failed ? 1 : 0);
  });

  it('measures the language-model loop per strategy through the real provider client (model time excluded)', ({
    cli,
    tempDir,
  }) => {
    const file = join(tempDir('bench-llm'), 'bench.json');
    const result = cli.run(['bench', '--only', 'llm', '--samples', '2', '--json', file], {
      timeoutMs: 120_000,
    });
    expect(result.stderr).toBe('');
    const { figures } = JSON.parse(readFileSync(file, 'utf8')) as { figures: BenchFigure[] };
    expect(figures.map((figure) => figure.name)).toEqual(
      ['single', 'try-again', 'react', 'plan-solve', 'tools'].map((name) => `${name}: overhead per turn`),
    );
    for (const figure of figures) {
      expect(figure).toMatchObject({
        backend: 'openai',
        unit: 'ms',
        target: { op: '<=', value: 2, stat: 'p50' },
      });
      expect(figure.n).toBeGreaterThan(0);
      expect(figure.p50).toBeGreaterThan(0);
      expect(result.stdout).toContain(`llm loop (model time excluded): ${figure.name}`);
    }
    expect(result.status).toBe(figures.some((figure) => figure.pass === false) ? 1 : 0);
  });

  it('--compare: a saved run beside this one, a regression beyond noise flagged with exit 1', ({
    cli,
    tempDir,
  }) => {
    const dir = tempDir('bench-compare');
    const first = join(dir, 'first.json');
    const run = (args: string[]) =>
      cli.run(['bench', '--only', 'llm', '--samples', '2', ...args], { timeoutMs: 120_000 });
    expect([0, 1]).toContain(run(['--json', first]).status);
    const saved = JSON.parse(readFileSync(first, 'utf8')) as { figures: BenchFigure[] };
    // The same run as if every turn had taken a thousandth of the time it took: this run is 1,000×
    // slower, far beyond the noise of a few samples (a p95 a hundred times its p50 over 4: ±5,000 %).
    const faster = join(dir, 'faster.json');
    writeFileSync(
      faster,
      JSON.stringify({
        ...saved,
        figures: saved.figures.map((figure) => ({
          ...figure,
          p50: figure.p50 / 1000,
          p95: figure.p95 / 1000,
        })),
      }),
    );
    const result = run(['--compare', faster, '--tolerance', '20']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`against ${faster}:`);
    for (const figure of saved.figures)
      expect(result.stdout).toMatch(
        new RegExp(`openai · llm loop \\(model time excluded\\): ${figure.name}.*REGRESSED`),
      );
    expect(result.stdout).toContain(`${saved.figures.length} figure(s) regressed beyond noise`);
    expect(result.status).toBe(1);
  });

  it('rejects an unknown figure group or backend in one line, exit 1, writing nothing', ({
    cli,
    tempDir,
  }) => {
    const file = join(tempDir('bench'), 'bench.json');
    expectOneLineError(
      cli.run(['bench', '--only', 'nope', '--json', file]),
      /--only: unknown "nope" \(known: sandbox, bash, ctf, sql, python, llm, server, mcp, queue\)/,
    );
    expectOneLineError(
      cli.run(['bench', '--backend', 'nope', '--json', file]),
      /--backend: unknown "nope" \(known: bwrap, docker\)/,
    );
    expectOneLineError(cli.run(['bench', '--samples', '0']), /--samples must be a positive integer/);
    expectOneLineError(cli.run(['bench', '--tolerance', '5']), /--tolerance applies to --compare only/);
    expectOneLineError(
      cli.run(['bench', '--compare', join(tempDir('bench'), 'none.json'), '--json', file]),
      /--compare .*none\.json: cannot read it \(ENOENT\)/,
    );
    expectOneLineError(
      cli.run(['bench', '--only', 'sql', '--redis', 'redis://127.0.0.1:1']),
      /--redis applies to the queue figures only/,
    );
    expect(existsSync(file)).toBe(false);
  });
});
