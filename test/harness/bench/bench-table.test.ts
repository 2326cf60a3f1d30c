import { describe, expect, it } from 'vitest';
import { figure } from '../../../src/harness/bench/bench-figure.js';
import { benchComparison } from '../../../src/harness/bench/bench-table.js';

describe('benchComparison', () => {
  it('puts the p50 of each backend side by side with its ratio to the first backend', () => {
    const figures = [
      figure({ backend: 'bwrap (debian)', group: 'sandbox', name: 'create', unit: 'ms' }, [10, 20, 30]),
      figure({ backend: 'docker (debian)', group: 'sandbox', name: 'create', unit: 'ms' }, [200, 250, 300]),
      figure({ backend: 'bwrap', group: 'bash', name: 'episode', unit: 'ms' }, [100]),
      figure({ backend: 'docker', group: 'bash', name: 'episode', unit: 'ms' }, [300]),
      // Measured on one backend only: left out.
      figure({ backend: 'bwrap', group: 'bash', name: 'only here', unit: 'ms' }, [1]),
    ];
    const lines = benchComparison(figures, ['bwrap', 'docker']).split('\n');
    expect(lines[0]).toMatch(/figure\s+unit\s+bwrap p50\s+docker p50\s+docker\/bwrap/);
    expect(lines.find((line) => line.startsWith('sandbox: create'))).toMatch(/ms\s+20\.0\s+250\s+12\.5x$/);
    expect(lines.find((line) => line.startsWith('bash: episode'))).toMatch(/ms\s+100\s+300\s+3\.00x$/);
    expect(lines.some((line) => line.includes('only here'))).toBe(false);
    expect(benchComparison(figures, ['bwrap'])).toBe('');
  });
});
