import { afterEach, describe, expect, it } from 'vitest';
import { GoldCache, goldCacheEnabled } from '../../src/envs/gold-cache.js';

/** A run whose end the test decides, counting its starts. */
function controlled<T>(): {
  run: () => Promise<T>;
  starts: () => number;
  end: (value: T) => void;
  fail: () => void;
} {
  let started = 0;
  let settle: { resolve: (value: T) => void; reject: (error: Error) => void } | undefined;
  return {
    run: () => {
      started += 1;
      return new Promise<T>((resolve, reject) => {
        settle = { resolve, reject };
      });
    },
    starts: () => started,
    end: (value) => settle?.resolve(value),
    fail: () => settle?.reject(new Error('the evaluation sandbox died')),
  };
}

const always = () => true;

describe('GoldCache', () => {
  it('runs a key once and answers later lookups with the kept result', async () => {
    const cache = new GoldCache<string>();
    const gold = controlled<string>();
    const first = cache.share('k', gold.run, always);
    gold.end('out');
    expect(await first).toBe('out');
    await Promise.resolve();
    expect(await cache.share('k', gold.run, always)).toBe('out');
    expect(gold.starts()).toBe(1);
    expect(cache.stats()).toMatchObject({ entries: 1, hits: 1, misses: 1 });
  });

  it('gives episodes that start while a run is under way that run (one run for a group)', async () => {
    const cache = new GoldCache<string>();
    const gold = controlled<string>();
    const group = [1, 2, 3, 4].map(() => cache.share('k', gold.run, always));
    gold.end('out');
    expect(await Promise.all(group)).toEqual(['out', 'out', 'out', 'out']);
    expect(gold.starts()).toBe(1);
  });

  it('shares a failed gold with the episodes waiting on it but keeps it for no later one', async () => {
    const cache = new GoldCache<{ corrupt: boolean }>();
    const gold = controlled<{ corrupt: boolean }>();
    const keep = (value: { corrupt: boolean }) => !value.corrupt;
    const both = [cache.share('k', gold.run, keep), cache.share('k', gold.run, keep)];
    gold.end({ corrupt: true });
    expect(await Promise.all(both)).toEqual([{ corrupt: true }, { corrupt: true }]);
    const again = cache.share('k', gold.run, keep);
    expect(gold.starts()).toBe(2);
    gold.end({ corrupt: false });
    expect(await again).toEqual({ corrupt: false });
    expect(cache.stats().entries).toBe(1);
  });

  it('replaces a run that throws by one of the waiting caller, and keeps nothing of it', async () => {
    const cache = new GoldCache<string>();
    const owner = controlled<string>();
    const waiter = controlled<string>();
    const first = cache.share('k', owner.run, always);
    const second = cache.share('k', waiter.run, always);
    owner.fail();
    await expect(first).rejects.toThrow('died');
    await new Promise((resolve) => setImmediate(resolve));
    expect(waiter.starts()).toBe(1);
    waiter.end('own');
    expect(await second).toBe('own');
  });

  it('drops the least recently used results past its byte budget, and never keeps one larger than it', async () => {
    // Each result is kept at twice its JSON length plus its key's length: 2 * 3 + 1 = 7 bytes.
    const cache = new GoldCache<string>(20);
    const keep = async (key: string, value: string) => cache.share(key, async () => value, always);
    await keep('a', 'x');
    await keep('b', 'y');
    await new Promise((resolve) => setImmediate(resolve));
    // Using `a` makes `b` the oldest.
    await keep('a', 'unused');
    await keep('c', 'z');
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.stats()).toMatchObject({ entries: 2, bytes: 14 });
    let runs = 0;
    await cache.share('b', async () => `${++runs}`, always);
    expect(runs).toBe(1);
    await keep('big', 'x'.repeat(50));
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.stats().bytes).toBeLessThanOrEqual(20);
  });
});

describe('goldCacheEnabled', () => {
  const saved = process.env.INTERCODE_GOLD_CACHE;
  afterEach(() => {
    if (saved === undefined) delete process.env.INTERCODE_GOLD_CACHE;
    else process.env.INTERCODE_GOLD_CACHE = saved;
  });

  it('is on in deterministic mode and off without it, unless the option says otherwise', () => {
    delete process.env.INTERCODE_GOLD_CACHE;
    const deterministic = { clockMs: 0 };
    expect(goldCacheEnabled({ deterministic })).toBe(true);
    expect(goldCacheEnabled({})).toBe(false);
    expect(goldCacheEnabled({ deterministic, goldCache: false })).toBe(false);
    expect(goldCacheEnabled({ goldCache: true })).toBe(true);
  });

  it('is off for every env with INTERCODE_GOLD_CACHE=off', () => {
    process.env.INTERCODE_GOLD_CACHE = 'off';
    expect(goldCacheEnabled({ deterministic: { clockMs: 0 }, goldCache: true })).toBe(false);
  });
});
