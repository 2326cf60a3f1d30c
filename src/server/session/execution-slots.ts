/**
 * How many env operations (resets and steps) of a server run at once; the others wait their turn in
 * arrival order. Without it, many sessions on a small machine share the CPU so thinly that commands
 * pass their own action time limit and the rewards drift from a local run's; with it, a waiting
 * operation spends its time in the queue (within the step deadline) and runs at full speed.
 */
export class ExecutionSlots {
  readonly size: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`slots must be a positive integer, got ${size}`);
    this.size = size;
  }

  /** Operations running now. */
  get active(): number {
    return this.#active;
  }

  /**
   * Runs `work` when a slot is free. `cancelled` is checked when the turn comes: a cancelled
   * operation (its deadline passed while waiting) gives the slot on and never runs.
   */
  async run<T>(work: () => Promise<T>, cancelled: () => boolean = () => false): Promise<T> {
    if (this.#active >= this.size) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#active += 1;
    }
    try {
      if (cancelled()) throw new Error('cancelled while waiting for an execution slot');
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active -= 1;
    }
  }
}
