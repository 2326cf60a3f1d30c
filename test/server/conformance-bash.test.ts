import { describe, expect } from 'vitest';
import { DEMO_BASH_TASKS } from '../../src/datasets/demo/demo-bash-tasks.js';
import { bwrapMissing } from '../support/missing-components.js';
import { jsonHttp } from '../support/server/raw-http.js';
import { RawWs } from '../support/server/raw-ws.js';
import type { ServedIntercode } from '../support/server/served-intercode.js';
import { it } from '../support/server/server-fixture.js';
import {
  expectErrorBody,
  expectErrorFrame,
  expectResetEnvelope,
  expectStepEnvelope,
} from '../support/server/wire-shapes.js';

// The protocol on demo/bash, in real bwrap sandboxes: exit codes in the observation, the per-step
// deadline (STEP_TIMEOUT, env replaced, sandbox reaped), SESSION_BUSY, a gold episode, and the live
// sandbox count (GET /intercode/sessions `sandboxes`, and bwrap processes under the server's PID).

type Json = Record<string, unknown>;
const noBwrap = await bwrapMissing();
let server: ServedIntercode;
const STEP_TIMEOUT_S = 5;

it.beforeAll(async ({ intercodeServe }) => {
  if (noBwrap) return;
  // The first reset builds the demo/bash layer into the cache, which takes longer than the short
  // step deadline below: a server with the default deadline builds it first.
  const warm = await intercodeServe(['--dataset', 'demo/bash']);
  const ws = await RawWs.open(warm.wsUrl);
  expect((await ws.request({ type: 'reset' }, 170_000)).type).toBe('observation');
  await ws.close();
  await warm.stop();
  server = await intercodeServe([
    '--dataset',
    'demo/bash',
    '--max-sessions',
    '4',
    '--step-timeout',
    String(STEP_TIMEOUT_S),
  ]);
}, 300_000);

async function waitSandboxes(count: number, timeoutMs = 30_000): Promise<number> {
  const started = Date.now();
  let now = server.sandboxes();
  while (now !== count && Date.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    now = server.sandboxes();
  }
  return now;
}

async function reportedSandboxes(): Promise<unknown> {
  return ((await jsonHttp(server.url, 'GET', '/intercode/sessions')).json as Json).sandboxes;
}

describe('demo/bash over the wire', () => {
  it('exit codes and output are in the observation; a gold episode scores 1', async ({ needs }) => {
    needs(noBwrap);
    const ws = await RawWs.open(server.wsUrl);
    try {
      const task = DEMO_BASH_TASKS[0]!;
      const reset = await ws.request({ type: 'reset', data: { task_id: task.id } }, 120_000);
      expect(expectResetEnvelope(reset.data).info).toMatchObject({ dataset: 'demo/bash', task_id: task.id });
      const echo = expectStepEnvelope((await ws.request({ type: 'step', data: { code: 'echo hi' } })).data);
      expect(echo.observation).toMatchObject({ output: 'hi\n', exit_code: 0, timed_out: false, turn: 1 });
      const fail = expectStepEnvelope((await ws.request({ type: 'step', data: { code: 'exit 3' } })).data);
      expect((fail.observation as Json).exit_code).toBe(3);
      const gold = await ws.request({ type: 'reset', data: { task_id: task.id } }, 120_000);
      expect(gold.type).toBe('observation');
      expectStepEnvelope((await ws.request({ type: 'step', data: { code: task.gold } })).data);
      const submit = expectStepEnvelope(
        (await ws.request({ type: 'step', data: { code: 'submit' } }, 120_000)).data,
      );
      expect(submit).toMatchObject({ reward: 1, done: true, terminated: true });
    } finally {
      await ws.close();
    }
  });

  it('sandboxes are counted while a session lives and reaped when it closes', async ({ needs }) => {
    needs(noBwrap);
    const baseline = await waitSandboxes(0, 5_000);
    const reportedBefore = await reportedSandboxes();
    const ws = await RawWs.open(server.wsUrl);
    await ws.request({ type: 'reset' }, 120_000);
    // The env's warm pool starts its spare pair after the reset: compare once the two counts agree
    // (each is read at its own instant), within 10 s.
    let live = server.sandboxes();
    let reported = await reportedSandboxes();
    for (
      const started = Date.now();
      reported !== undefined && reported !== live && Date.now() - started < 10_000;
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      live = server.sandboxes();
      reported = await reportedSandboxes();
    }
    console.log(
      `conformance-bash: live sandboxes ${baseline} → ${live} with one session (reported ${String(reported)})`,
    );
    expect(live).toBeGreaterThan(baseline);
    if (reported !== undefined) {
      expect(reported).toBe(live);
      expect(reportedBefore).toBe(baseline);
    }
    await ws.close();
    expect(await waitSandboxes(baseline)).toBe(baseline);
  });

  it(`a step past --step-timeout → STEP_TIMEOUT; the env is replaced and the next reset works`, async ({
    needs,
  }) => {
    needs(noBwrap);
    const baseline = await waitSandboxes(0, 5_000);
    const ws = await RawWs.open(server.wsUrl);
    try {
      await ws.request({ type: 'reset' }, 120_000);
      const started = Date.now();
      const timeout = await ws.request(
        { type: 'step', data: { code: 'sleep 30' }, request_id: 'slow' },
        60_000,
      );
      const elapsedS = (Date.now() - started) / 1000;
      console.log(
        `conformance-bash: STEP_TIMEOUT after ${elapsedS.toFixed(1)} s (limit ${STEP_TIMEOUT_S} s)`,
      );
      expectErrorFrame(timeout, 'STEP_TIMEOUT');
      expect(timeout.request_id).toBe('slow');
      expect(elapsedS).toBeLessThan(25);
      const again = await ws.request({ type: 'reset' }, 120_000);
      expectResetEnvelope(again.data);
      const step = expectStepEnvelope((await ws.request({ type: 'step', data: { code: 'echo back' } })).data);
      expect((step.observation as Json).output).toBe('back\n');
    } finally {
      await ws.close();
    }
    expect(await waitSandboxes(baseline), 'the timed-out env was reaped').toBe(baseline);
  });

  it('HTTP session: a second request while a step runs → 409 SESSION_BUSY; a step past the deadline → 504', async ({
    needs,
  }) => {
    needs(noBwrap);
    const baseline = await waitSandboxes(0, 5_000);
    const created = await jsonHttp(server.url, 'POST', '/intercode/sessions', {});
    expect(created.status).toBe(201);
    const id = (created.json as { session_id: string }).session_id;
    const headers = { 'x-session-id': id };
    try {
      expect((await jsonHttp(server.url, 'POST', '/reset', {}, headers)).status).toBe(200);
      const slow = jsonHttp(
        server.url,
        'POST',
        '/step',
        { action: { code: 'sleep 2; echo slept' } },
        headers,
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const busy = await jsonHttp(server.url, 'POST', '/step', { action: { code: 'echo 2' } }, headers);
      expect(busy.status).toBe(409);
      expectErrorBody(busy.json, 'SESSION_BUSY');
      const first = await slow;
      expect(first.status).toBe(200);
      expect(((first.json as Json).observation as Json).output).toBe('slept\n');
      const late = await jsonHttp(server.url, 'POST', '/step', { action: { code: 'sleep 30' } }, headers);
      expect(late.status).toBe(504);
      expectErrorBody(late.json, 'STEP_TIMEOUT');
      expect((await jsonHttp(server.url, 'POST', '/reset', {}, headers)).status).toBe(200);
    } finally {
      expect((await jsonHttp(server.url, 'DELETE', `/intercode/sessions/${id}`)).status).toBe(200);
    }
    expect(await waitSandboxes(baseline)).toBe(baseline);
  });

  it('stateless HTTP step: a fresh sandbox per request, gone afterwards', async ({ needs }) => {
    needs(noBwrap);
    const baseline = await waitSandboxes(0, 5_000);
    const reply = await jsonHttp(server.url, 'POST', '/step', { action: { code: 'pwd; echo $((6*7))' } });
    expect(reply.status).toBe(200);
    expect(
      ((expectStepEnvelope(reply.json).observation as Json).output as string).trim().split('\n'),
    ).toContain('42');
    expect(await waitSandboxes(baseline)).toBe(baseline);
  });

  it('a reset that misses the deadline (a cold layer build) leaves no sandbox behind', async ({
    needs,
    intercodeServe,
    tempDir,
  }) => {
    needs(noBwrap);
    const cold = await intercodeServe(['--dataset', 'demo/bash', '--step-timeout', '0.05'], {
      INTERCODE_CACHE_DIR: tempDir('cold-cache'),
    });
    try {
      const ws = await RawWs.open(cold.wsUrl);
      expectErrorFrame(await ws.request({ type: 'reset' }, 60_000), 'STEP_TIMEOUT');
      await ws.close();
      const started = Date.now();
      // The abandoned build goes on in the background: watch at least 15 s, then until none is left.
      let live = cold.sandboxes();
      let most = live;
      while ((live !== 0 || Date.now() - started < 15_000) && Date.now() - started < 60_000) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        live = cold.sandboxes();
        most = Math.max(most, live);
      }
      const sessions = (await jsonHttp(cold.url, 'GET', '/intercode/sessions')).json as Json;
      console.log(
        `conformance-bash: after a timed-out cold reset: ${live} live sandboxes after ${((Date.now() - started) / 1000).toFixed(1)} s, at most ${most} (server reports ${String(sessions.sandboxes)}, ${String(sessions.active)} sessions)`,
      );
      expect(sessions.active).toBe(0);
      expect(live).toBe(0);
    } finally {
      await cold.stop();
    }
  }, 300_000);
});
