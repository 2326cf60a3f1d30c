import { describe, expect, it } from 'vitest';
import {
  boundDetails,
  DETAILS_MAX_DEPTH,
  DETAILS_MAX_ENTRIES,
  DETAILS_MAX_STRING_BYTES,
  DETAILS_MAX_TOTAL_BYTES,
} from '../../../src/core/run-files/bound-details.js';
import { scoredTurnFields } from '../../../src/core/run-files/scored-turn-fields.js';

/** `value` nested `depth` levels deep in single-key objects. */
function nested(depth: number, value: unknown): unknown {
  let out = value;
  for (let level = 0; level < depth; level += 1) out = { in: out };
  return out;
}

/** The mark and the byte count of a cut string; undefined when `text` is not cut. */
function cutOf(text: string): { kept: string; cut: number } | undefined {
  const match = /^([\s\S]*)…\[cut (\d+) bytes\]$/.exec(text);
  return match ? { kept: match[1]!, cut: Number(match[2]) } : undefined;
}

describe('boundDetails', () => {
  it('gives plain JSON details back equal, and nothing for none or empty ones', () => {
    const details = {
      rule: 'tau-scaled',
      agentRows: 3,
      goldRows: null,
      ok: true,
      tests: [{ test: 'assert f(1) == 2', agent: { output: '', error: '' } }],
      goldOutput: 'a | b\n1 | 2\n(1 row)\n',
    };
    expect(boundDetails(details)).toEqual(details);
    expect(JSON.parse(JSON.stringify(boundDetails(details)))).toEqual(details);
    expect(boundDetails(undefined)).toBeUndefined();
    expect(boundDetails({})).toBeUndefined();
    expect(boundDetails({ gone: undefined })).toBeUndefined();
  });

  it('keeps a string of exactly 16 KiB whole and cuts one byte more, saying how much', () => {
    const exact = 'x'.repeat(DETAILS_MAX_STRING_BYTES);
    expect(boundDetails({ exact })).toEqual({ exact });
    const over = boundDetails({ over: `${exact}yz` })?.over as string;
    expect(cutOf(over)).toEqual({ kept: exact, cut: 2 });
    const huge = boundDetails({ huge: 'a'.repeat(1_000_000) })?.huge as string;
    expect(cutOf(huge)).toEqual({ kept: 'a'.repeat(DETAILS_MAX_STRING_BYTES), cut: 1_000_000 - 16_384 });
  });

  it('counts UTF-8 bytes and never cuts inside a character', () => {
    // 'é' is 2 bytes, '€' 3, '😀' 4 (a surrogate pair in JS).
    for (const char of ['é', '€', '😀']) {
      const bytes = Buffer.byteLength(char);
      const count = Math.ceil(DETAILS_MAX_STRING_BYTES / bytes) + 1;
      const text = `${'a'}${char.repeat(count)}`;
      const out = boundDetails({ text })?.text as string;
      const cut = cutOf(out)!;
      expect(cut.kept.startsWith('a')).toBe(true);
      expect([...cut.kept.slice(1)].every((c) => c === char)).toBe(true);
      expect(Buffer.byteLength(cut.kept)).toBeLessThanOrEqual(DETAILS_MAX_STRING_BYTES);
      expect(Buffer.byteLength(cut.kept)).toBeGreaterThan(DETAILS_MAX_STRING_BYTES - bytes);
      expect(Buffer.byteLength(cut.kept) + cut.cut).toBe(Buffer.byteLength(text));
      expect(cut.kept).not.toContain('\uFFFD');
    }
    // A string of multibyte characters under the limit in length but over it in bytes is cut.
    const wide = '€'.repeat(DETAILS_MAX_STRING_BYTES / 2);
    expect(cutOf(boundDetails({ wide })?.wide as string)).toBeDefined();
  });

  it('keeps 500 entries of an array and counts the rest in a last entry', () => {
    const exact = Array.from({ length: DETAILS_MAX_ENTRIES }, (_, i) => i);
    expect(boundDetails({ exact })?.exact).toEqual(exact);
    const changes = Array.from({ length: 1234 }, (_, i) => ({ status: 'A', path: `f${i}` }));
    const out = boundDetails({ changes })?.changes as unknown[];
    expect(out).toHaveLength(DETAILS_MAX_ENTRIES + 1);
    expect(out.slice(0, DETAILS_MAX_ENTRIES)).toEqual(changes.slice(0, DETAILS_MAX_ENTRIES));
    expect(out.at(-1)).toBe('…[cut 734 entries]');
  });

  it('keeps 500 keys of an object and counts the rest under the key "…"', () => {
    const wide = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}`, i]));
    const out = boundDetails({ wide })?.wide as Record<string, unknown>;
    expect(Object.keys(out)).toHaveLength(DETAILS_MAX_ENTRIES + 1);
    expect(out.k499).toBe(499);
    expect(out.k500).toBeUndefined();
    expect(out['…']).toBe('…[cut 100 keys]');
  });

  it('bounds nesting: what is deeper than 8 levels becomes a mark; a cycle is cut, a shared object is not', () => {
    // The details object is level 1: 7 more levels of objects are kept, the 8th nested one is cut.
    const kept = boundDetails({ deep: nested(DETAILS_MAX_DEPTH - 2, 'leaf') });
    expect(kept).toEqual({ deep: nested(DETAILS_MAX_DEPTH - 2, 'leaf') });
    const cut = boundDetails({ deep: nested(DETAILS_MAX_DEPTH + 5, 'leaf') });
    expect(cut).toEqual({
      deep: nested(DETAILS_MAX_DEPTH - 1, `…[cut: nested deeper than ${DETAILS_MAX_DEPTH}]`),
    });
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    expect(boundDetails({ cycle })).toEqual({ cycle: { name: 'loop', self: '…[cut: cycle]' } });
    const shared = { path: 'a' };
    expect(boundDetails({ left: shared, right: [shared, shared] })).toEqual({
      left: { path: 'a' },
      right: [{ path: 'a' }, { path: 'a' }],
    });
  });

  it('drops or stringifies what JSON cannot hold', () => {
    const out = boundDetails({
      none: undefined,
      fn: () => 1,
      sym: Symbol('s'),
      big: 12345678901234567890n,
      nan: Number.NaN,
      inf: Number.POSITIVE_INFINITY,
      negInf: Number.NEGATIVE_INFINITY,
      negZero: -0,
      date: new Date('2026-12-02T00:00:00Z'),
      badDate: new Date(Number.NaN),
      bytes: new Uint8Array([0, 1, 255]),
      set: new Set(['a', 'b']),
      map: new Map<unknown, unknown>([
        ['x', 1],
        [2, undefined],
      ]),
      list: [undefined, () => 2, 3],
    });
    expect(out).toEqual({
      big: '12345678901234567890',
      nan: 'NaN',
      inf: 'Infinity',
      negInf: '-Infinity',
      negZero: -0,
      date: '2026-12-02T00:00:00.000Z',
      badDate: 'Invalid Date',
      bytes: '0x0001ff',
      set: ['a', 'b'],
      map: { x: 1 },
      list: [null, null, 3],
    });
    // What comes out survives JSON unchanged (-0 aside, which JSON writes as 0).
    const { negZero: _zero, ...rest } = out!;
    expect(JSON.parse(JSON.stringify(rest))).toEqual(rest);
  });

  it('bounds the whole: past 256 KiB of string text, strings are cut to their mark', () => {
    const chunk = 'z'.repeat(DETAILS_MAX_STRING_BYTES);
    const many = Array.from({ length: 40 }, () => chunk);
    const out = boundDetails({ many })?.many as string[];
    const whole = DETAILS_MAX_TOTAL_BYTES / DETAILS_MAX_STRING_BYTES;
    expect(out.slice(0, whole).every((text) => text === chunk)).toBe(true);
    expect(out.slice(whole).every((text) => text === `…[cut ${DETAILS_MAX_STRING_BYTES} bytes]`)).toBe(true);
    expect(JSON.stringify(out).length).toBeLessThan(DETAILS_MAX_TOTAL_BYTES + 40 * 40);
    // The budget is per call: the next details start afresh.
    expect(boundDetails({ one: chunk })?.one).toBe(chunk);
  });

  it('does not change its input', () => {
    const input = { list: Array.from({ length: 600 }, (_, i) => i), text: 'q'.repeat(20_000) };
    const before = structuredClone(input);
    boundDetails(input);
    expect(input).toEqual(before);
  });
});

describe('scoredTurnFields', () => {
  it("keeps a score's parts (a copy) and bounded details; nothing without a score", () => {
    const parts = { iou: 1 };
    const fields = scoredTurnFields({ value: 1, parts, details: { goldOutput: 'x', gone: undefined } });
    expect(fields).toEqual({ parts: { iou: 1 }, details: { goldOutput: 'x' } });
    expect(fields.parts).not.toBe(parts);
    expect(scoredTurnFields({ value: 0, details: { reason: 'no function name' } })).toEqual({
      details: { reason: 'no function name' },
    });
    expect(scoredTurnFields({ value: 0 })).toEqual({});
    expect(scoredTurnFields(undefined)).toEqual({});
  });
});
