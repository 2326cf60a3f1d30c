import { describe, expect, it } from 'vitest';
import { toAction } from '../../src/core/action.js';
import type { Env, Observation, Score, StepResult } from '../../src/core/env.js';
import { IntercodeError } from '../../src/core/errors.js';
import { TimeLimit } from '../../src/core/time-limit.js';

/** A tiny env: code actions echo, submit ends with reward 1. */
class EchoEnv implements Env {
  resets = 0;
  async reset() {
    this.resets += 1;
    return { observation: obs('ready'), info: { taskId: 't', index: 0, query: 'q' } };
  }
  async step(action: Parameters<Env['step']>[0]): Promise<StepResult> {
    const parsed = toAction(action);
    if (parsed.type === 'code') {
      return {
        observation: obs(parsed.code),
        reward: 0,
        terminated: false,
        truncated: false,
        info: { admissible: true },
      };
    }
    return {
      observation: obs(''),
      reward: 1,
      terminated: true,
      truncated: false,
      info: { admissible: true },
    };
  }
  async score(): Promise<Score> {
    return { value: 0 };
  }
  async close() {}
}

function obs(text: string): Observation {
  return { text, durationMs: 0 };
}

describe('TimeLimit', () => {
  it('truncates after maxTurns steps without terminating', async () => {
    const env = new TimeLimit(new EchoEnv(), 2);
    await env.reset();
    expect((await env.step('a')).truncated).toBe(false);
    const last = await env.step('b');
    expect(last).toMatchObject({ truncated: true, terminated: false });
    await expect(env.step('c')).rejects.toMatchObject({ code: 'ENV_RESET_NEEDED' });
  });

  it('lets a submit terminate before the limit, and counts turns per episode', async () => {
    const inner = new EchoEnv();
    const env = new TimeLimit(inner, 3);
    await env.reset();
    await env.step('a');
    const done = await env.step('submit');
    expect(done).toMatchObject({ terminated: true, truncated: false, reward: 1 });
    expect(env.turns).toBe(2);
    await env.reset();
    expect(env.turns).toBe(0);
    expect(inner.resets).toBe(2);
  });

  it('refuses a step before reset and a non-positive limit', async () => {
    const env = new TimeLimit(new EchoEnv(), 1);
    await expect(env.step('a')).rejects.toSatisfy(IntercodeError.isInstance);
    expect(() => new TimeLimit(new EchoEnv(), 0)).toThrow(/positive integer/);
  });
});
