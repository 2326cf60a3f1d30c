import { describe, expect, it } from 'vitest';
import { truncateObservation } from '../../../../src/agents/llm/prompts/truncate-observation.js';

const rows = (n: number): string => Array.from({ length: n }, (_, i) => `row ${i + 1}`).join('\n');

describe('truncateObservation', () => {
  it('leaves short output unchanged', () => {
    expect(truncateObservation('a\nb', { chars: 1000, rows: 50 })).toBe('a\nb');
  });

  it('keeps the first rows and says how many more there were', () => {
    const out = truncateObservation(rows(60), { chars: 1000, rows: 50 });
    const lines = out.split('\n');
    expect(lines).toHaveLength(51);
    expect(lines[49]).toBe('row 50');
    expect(lines[50]).toMatch(/^\[output truncated: 10 more lines not shown/);
  });

  it('keeps the first characters (ReAct: 350)', () => {
    const out = truncateObservation('x'.repeat(400), { chars: 350, rows: 25 });
    expect(out.split('\n')[0]).toBe('x'.repeat(350));
    expect(out).toMatch(/\[output truncated: more not shown, 400 characters in all\]$/);
  });

  it('applies the row limit, then the character limit', () => {
    const out = truncateObservation(rows(30), { chars: 20, rows: 25 });
    expect(out.split('\n[')[0]).toBe(rows(25).slice(0, 20));
    expect(out).toContain('5 more lines');
  });

  it('has no row limit when rows is not given', () => {
    expect(truncateObservation(rows(200), { chars: 100_000 })).toBe(rows(200));
  });

  it('does not split a character made of two code units', () => {
    const out = truncateObservation(`${'a'.repeat(9)}😀b`, { chars: 10 });
    expect(out.split('\n')[0]).toBe('a'.repeat(9));
  });
});
