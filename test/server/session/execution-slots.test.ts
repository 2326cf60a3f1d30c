import { describe, expect, it } from 'vitest';
import { ExecutionSlots } from '../../../src/server/session/execution-slots.js';

describe('ExecutionSlots', () => {
  it('runs at most `size` operations at once, the others in arrival order', async () => {
    const slots = new ExecutionSlots(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const ops = [0, 1, 2, 3, 4].map((i) =>
      slots.run(async () => {
        running += 1;
        peak = Math.max(peak, running);
        order.push(i);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
        return i;
      }),
    );
    while (order.length < 5) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      releases.shift()?.();
    }
    for (const release of releases) release();
    expect(await Promise.all(ops)).toEqual([0, 1, 2, 3, 4]);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(slots.active).toBe(0);
  });

  it('skips an operation cancelled while it waited, and passes its slot on', async () => {
    const slots = new ExecutionSlots(1);
    let release!: () => void;
    const first = slots.run(() => new Promise<void>((resolve) => (release = resolve)));
    let cancelled = false;
    let ran = false;
    const second = slots.run(
      async () => {
        ran = true;
      },
      () => cancelled,
    );
    const third = slots.run(async () => 'third');
    cancelled = true;
    release();
    await first;
    await expect(second).rejects.toThrow('cancelled');
    expect(ran).toBe(false);
    expect(await third).toBe('third');
    expect(slots.active).toBe(0);
  });

  it('refuses a size below 1', () => {
    expect(() => new ExecutionSlots(0)).toThrow(RangeError);
  });
});
