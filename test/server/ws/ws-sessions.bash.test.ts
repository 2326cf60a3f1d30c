import { describe, expect } from 'vitest';
import { DEMO_BASH_TASKS } from '../../../src/datasets/demo/demo-bash-tasks.js';
import { liveSandboxCount } from '../../../src/server/app/live-sandboxes.js';
import { startServer } from '../../../src/server/app/start-server.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';
import { WsTestClient } from './ws-client.js';

// 64 WebSocket sessions at once on demo/bash, each playing one gold episode in its own bwrap sandbox.
// The gold actions come from the dataset's tasks on this side; the server never sends a gold.

const noBwrap = await bwrapMissing();
const SESSIONS = 64;

describe('64 concurrent WebSocket sessions on demo/bash', () => {
  it('each plays a gold episode to reward 1, and every sandbox is reaped afterwards', {
    timeout: 600_000,
  }, async ({ cache, mirror, needs }) => {
    needs(noBwrap);
    expect(cache && mirror).toBeTruthy();
    const baseline = liveSandboxCount();
    const server = await startServer({
      port: 0,
      dataset: 'demo/bash',
      maxSessions: SESSIONS,
      stepTimeoutMs: 300_000,
    });
    const url = `${server.url.replace('http', 'ws')}/ws`;
    try {
      const episodes = Array.from({ length: SESSIONS }, async (_, i) => {
        const client = await WsTestClient.connect(url);
        try {
          const index = i % DEMO_BASH_TASKS.length;
          const task = DEMO_BASH_TASKS[index]!;
          const reset = await client.send({ type: 'reset', data: { index }, request_id: i });
          if (reset.type !== 'observation') return { i, failure: JSON.stringify(reset) };
          const step = await client.send({ type: 'step', data: { code: task.gold } });
          if (step.type !== 'observation') return { i, failure: JSON.stringify(step) };
          const submit = await client.send({ type: 'step', data: { code: 'submit' } });
          return {
            i,
            reward: submit.data.reward,
            done: submit.data.done,
            reply: reset.request_id,
            step: step.data.observation,
            parts: (submit.data.info as { reward_parts?: unknown }).reward_parts,
          };
        } finally {
          client.close();
          await client.closed;
        }
      });
      const results = await Promise.all(episodes);
      const failures = results.filter(
        (result) => !('reward' in result) || result.reward !== 1 || result.done !== true,
      );
      expect(failures).toEqual([]);
      expect(results.map((result) => ('reply' in result ? result.reply : undefined))).toEqual(
        Array.from({ length: SESSIONS }, (_, i) => i),
      );
    } finally {
      await server.close();
    }
    expect(server.sessions.sessions.active).toBe(0);
    expect(liveSandboxCount()).toBe(baseline);
  });
});
