import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../../src/agents/llm/model-failure.js';

describe('retryAfterMs', () => {
  const now = Date.parse('2026-12-01T06:00:00Z');

  it('reads retry-after-ms first, then retry-after in seconds or as a date', () => {
    expect(retryAfterMs({ 'retry-after-ms': '250.5', 'retry-after': '9' }, now)).toBe(251);
    expect(retryAfterMs({ 'Retry-After': '2' }, now)).toBe(2_000);
    expect(retryAfterMs({ 'retry-after': '0.5' }, now)).toBe(500);
    expect(retryAfterMs({ 'retry-after': 'Tue, 01 Dec 2026 06:00:30 GMT' }, now)).toBe(30_000);
    expect(retryAfterMs({ 'retry-after': 'Tue, 01 Dec 2026 05:00:00 GMT' }, now)).toBe(0);
  });

  it('is undefined without a readable header', () => {
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs({ 'content-type': 'application/json' }, now)).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterMs({ 'retry-after-ms': '-5' }, now)).toBeUndefined();
  });
});
