import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/core/errors.js';
import { benchCompareTable, compareBench, readBenchFile } from '../../../src/harness/bench/bench-compare.js';
import type { BenchFigure } from '../../../src/harness/bench/bench-figure.js';
import { cleanup, tempDir } from '../../datasets/mirror-fixture.js';

const made: string[] = [];
afterAll(() => cleanup(made));

function fig(
  name: string,
  unit: BenchFigure['unit'],
  p50: number,
  p95: number,
  n = 100,
  extra = {},
): BenchFigure {
  return { backend: 'bwrap', group: 'g', name, unit, n, p50, p95, mean: p50, max: p95, ...extra };
}

const verdicts = (saved: BenchFigure[], current: BenchFigure[], tolerance = 0.1) =>
  Object.fromEntries(compareBench(saved, current, tolerance).map((change) => [change.key, change.verdict]));

describe('compareBench', () => {
  it('flags a time that grew beyond the tolerance and its noise, and a rate that fell', () => {
    const saved = [
      fig('step', 'ms', 1.0, 1.2),
      fig('reset', 'ms', 1.0, 1.2),
      fig('exec', 'ms', 1.0, 1.2),
      fig('throughput', 'episodes/s', 500, 500, 1),
      fig('faster', 'episodes/s', 500, 500, 1),
    ];
    const current = [
      fig('step', 'ms', 1.25, 1.5), // 25 % slower, spread 2 × 0.2/10 = 4 %
      fig('reset', 'ms', 1.05, 1.2), // 5 % slower: within the tolerance
      fig('exec', 'ms', 0.8, 1.0), // 20 % faster
      fig('throughput', 'episodes/s', 400, 400, 1), // 20 % fewer per second
      fig('faster', 'episodes/s', 600, 600, 1),
    ];
    expect(verdicts(saved, current)).toEqual({
      'bwrap · g: step': 'REGRESSED',
      'bwrap · g: reset': 'same',
      'bwrap · g: exec': 'better',
      'bwrap · g: throughput': 'REGRESSED',
      'bwrap · g: faster': 'better',
    });
    const step = compareBench(saved, current, 0.1)[0]!;
    expect(step.worse).toBeCloseTo(0.25);
    expect(step.noise).toBeCloseTo(2 * (0.25 / 1.25 / 10));
  });

  it('does not flag what the spread of few samples explains, nor a figure of unknown direction', () => {
    // p95 three times p50 over 4 samples: ±(2 × 2/2) = ±200 %.
    const saved = [fig('noisy', 'ms', 1, 3, 4), fig('failures', 'count', 1, 1, 1)];
    const current = [fig('noisy', 'ms', 1.5, 4, 4), fig('failures', 'count', 3, 3, 1)];
    expect(verdicts(saved, current)).toEqual({
      'bwrap · g: noisy': 'worse within noise',
      'bwrap · g: failures': 'same',
    });
    // A target gives the direction: fewer failures is better, more is a regression.
    const target = { target: { op: '<=', value: 0, stat: 'max' } };
    expect(
      verdicts([fig('failures', 'count', 1, 1, 1, target)], [fig('failures', 'count', 3, 3, 1, target)]),
    ).toEqual({ 'bwrap · g: failures': 'REGRESSED' });
  });

  it('lists figures only one side has, and a wider tolerance lets more through', () => {
    const saved = [fig('old', 'ms', 1, 1.1), fig('step', 'ms', 1, 1.1)];
    const current = [fig('step', 'ms', 1.3, 1.4), fig('added', 'ms', 1, 1.1)];
    expect(verdicts(saved, current)).toEqual({
      'bwrap · g: step': 'REGRESSED',
      'bwrap · g: added': 'new',
      'bwrap · g: old': 'not measured',
    });
    expect(verdicts(saved, current, 0.5)['bwrap · g: step']).toBe('same');
    const table = benchCompareTable(compareBench(saved, current, 0.1));
    expect(table).toMatch(/bwrap · g: step\s+ms\s+1\.00\s+1\.30\s+\+30\.0 %\s+±\S+ %\s+REGRESSED/);
  });
});

describe('readBenchFile', () => {
  it('reads the figures of a --json file (a figure without samples has null p50) and refuses anything else in one line', () => {
    const dir = tempDir('bench-compare', made);
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ started: 'x', figures: [{ ...fig('a', 'ms', 1, 2), p50: null }] }));
    const [figure] = readBenchFile(good);
    expect(figure?.name).toBe('a');
    expect(Number.isNaN(figure?.p50)).toBe(true);
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, '{');
    const wrong = join(dir, 'wrong.json');
    writeFileSync(wrong, JSON.stringify({ rows: [] }));
    for (const [path, message] of [
      [join(dir, 'missing.json'), /cannot read it \(ENOENT\)/],
      [notJson, /not JSON/],
      [wrong, /not a file of intercode bench --json/],
    ] as const) {
      expect(() => readBenchFile(path)).toThrow(UsageError);
      expect(() => readBenchFile(path)).toThrow(new RegExp(`^--compare ${path}: ${message.source}`));
    }
  });
});
