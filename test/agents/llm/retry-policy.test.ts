import { describe, expect, it } from 'vitest';
import type { ModelFailure } from '../../../src/agents/llm/model-failure.js';
import { type RetryOptions, RetryPolicy, sleepFor } from '../../../src/agents/llm/retry-policy.js';
import { IntercodeError } from '../../../src/core/errors.js';

class Scripted extends Error {
  constructor(readonly failure: ModelFailure) {
    super(failure.message);
  }
}

const fail = (failure: Partial<ModelFailure> = {}): Scripted =>
  new Scripted({ kind: 'transient', reason: '500', message: 'server error', ...failure });

/** Runs `outcomes` (an error to throw or a value to return) through a policy with a recording sleep. */
async function play(outcomes: readonly (Scripted | string)[], options: RetryOptions = {}) {
  const slept: number[] = [];
  const policy = new RetryPolicy({
    random: () => 0.5,
    sleep: async (ms) => {
      slept.push(ms);
    },
    ...options,
  });
  let attempts = 0;
  let ok: { value: string; retries: unknown[] } | undefined;
  let error: unknown;
  try {
    ok = await policy.run({
      label: 'openai:test',
      attempt: async () => {
        const outcome = outcomes[attempts];
        attempts += 1;
        if (outcome === undefined) throw new Error('ran out of outcomes');
        if (outcome instanceof Scripted) throw outcome;
        return outcome;
      },
      classify: (e) => (e instanceof Scripted ? e.failure : undefined),
    });
  } catch (e) {
    error = e;
  }
  return { ok, error, slept, attempts };
}

describe('RetryPolicy', () => {
  it('backs off exponentially from the initial delay, capped per wait, with jitter around it', () => {
    const centred = new RetryPolicy({
      initialDelayMs: 1_000,
      factor: 2,
      maxDelayMs: 5_000,
      random: () => 0.5,
    });
    expect([1, 2, 3, 4, 5].map((n) => centred.backoffMs(n))).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
    const low = new RetryPolicy({ initialDelayMs: 1_000, jitter: 0.25, random: () => 0 });
    const high = new RetryPolicy({ initialDelayMs: 1_000, jitter: 0.25, random: () => 0.999_999 });
    expect(low.backoffMs(1)).toBe(750);
    expect(high.backoffMs(1)).toBe(1_250);
  });

  it('retries transient failures and returns the retries it made', async () => {
    const { ok, slept } = await play([fail(), fail({ reason: '429' }), 'answer'], { initialDelayMs: 100 });
    expect(ok).toEqual({
      value: 'answer',
      retries: [
        { attempt: 1, reason: '500', waitMs: 100 },
        { attempt: 2, reason: '429', waitMs: 200 },
      ],
    });
    expect(slept).toEqual([100, 200]);
  });

  it('waits exactly what Retry-After asks instead of the backoff', async () => {
    const { slept } = await play([fail({ reason: '429', retryAfterMs: 7_000 }), 'ok'], {
      initialDelayMs: 100,
    });
    expect(slept).toEqual([7_000]);
  });

  it('fails a rejection at once with MODEL_REJECTED', async () => {
    const { error, attempts, slept } = await play([
      fail({ kind: 'rejected', reason: '401', message: '401: bad key' }),
      'ok',
    ]);
    expect(IntercodeError.isInstance(error) && error.code).toBe('MODEL_REJECTED');
    expect((error as Error).message).toBe('openai:test: the endpoint rejected the request: 401: bad key');
    expect(attempts).toBe(1);
    expect(slept).toEqual([]);
  });

  it('gives up after maxAttempts with MODEL_FAILED naming the last failure', async () => {
    const { error, attempts, slept } = await play(
      [fail(), fail(), fail({ reason: '503', message: '503: busy' })],
      {
        maxAttempts: 3,
        initialDelayMs: 10,
      },
    );
    expect(IntercodeError.isInstance(error) && error.code).toBe('MODEL_FAILED');
    expect((error as Error).message).toMatch(/gave up after 3 attempts.*last failure 503: 503: busy/);
    expect(attempts).toBe(3);
    expect(slept).toEqual([10, 20]);
  });

  it('never waits past the total budget: it stops before a wait that would cross it', async () => {
    const { error, slept } = await play([fail(), fail(), fail(), fail(), 'ok'], {
      maxAttempts: 10,
      initialDelayMs: 1_000,
      maxTotalWaitMs: 3_500,
    });
    expect(slept).toEqual([1_000, 2_000]);
    expect((error as Error).message).toMatch(/retry budget of 3\.5 s/);
    const { error: tooLong, slept: none } = await play([fail({ retryAfterMs: 600_000 }), 'ok']);
    expect(IntercodeError.isInstance(tooLong) && tooLong.code).toBe('MODEL_FAILED');
    expect(none).toEqual([]);
  });

  it('ends on bad responses with MODEL_BAD_RESPONSE', async () => {
    const bad = fail({ kind: 'bad-response', reason: 'bad response', message: 'Invalid JSON response' });
    const { error, attempts } = await play([bad, bad], { maxAttempts: 2 });
    expect(IntercodeError.isInstance(error) && error.code).toBe('MODEL_BAD_RESPONSE');
    expect(attempts).toBe(2);
  });

  it('throws errors it cannot classify as they are', async () => {
    const policy = new RetryPolicy();
    const bug = new RangeError('a bug');
    await expect(
      policy.run({ label: 'x', attempt: () => Promise.reject(bug), classify: () => undefined }),
    ).rejects.toBe(bug);
  });

  it('throws the abort reason while waiting', async () => {
    const controller = new AbortController();
    const policy = new RetryPolicy({ initialDelayMs: 60_000 });
    const reason = new Error('stop');
    setTimeout(() => controller.abort(reason), 20);
    await expect(
      policy.run({
        label: 'x',
        signal: controller.signal,
        attempt: () => Promise.reject(fail()),
        classify: (e) => (e as Scripted).failure,
      }),
    ).rejects.toBe(reason);
  });
});

describe('sleepFor', () => {
  it('waits, and rejects at once on an aborted signal', async () => {
    const started = Date.now();
    await sleepFor(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    await expect(sleepFor(10_000, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });
});
