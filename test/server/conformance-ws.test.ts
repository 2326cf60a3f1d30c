import { describe, expect } from 'vitest';
import { DEMO_SQL_TASKS } from '../../src/datasets/demo/demo-sql-tasks.js';
import { jsonHttp } from '../support/server/raw-http.js';
import { RawWs } from '../support/server/raw-ws.js';
import type { ServedIntercode } from '../support/server/served-intercode.js';
import { it } from '../support/server/server-fixture.js';
import {
  expectErrorFrame,
  expectKeys,
  expectResetEnvelope,
  expectState,
  expectStepEnvelope,
} from '../support/server/wire-shapes.js';

// The WebSocket /ws protocol (OpenEnv §4 and the issue-13 spec) with exact text frames from the `ws`
// package: reset/step/state/close/mcp frames, every error code a client can provoke, request_id echo,
// and the capacity reply sent on connect. demo/sql on SQLite.

type Json = Record<string, unknown>;
let server: ServedIntercode;
const MAX = 3;
const sockets: RawWs[] = [];

it.beforeAll(async ({ intercodeServe }) => {
  server = await intercodeServe(['--dataset', 'demo/sql', '--max-sessions', String(MAX), '--max-turns', '4']);
}, 120_000);

it.afterEach(async () => {
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  // Every socket closed: the sessions are gone before the next test counts them.
  const started = Date.now();
  while (Date.now() - started < 20_000) {
    const active = ((await jsonHttp(server.url, 'GET', '/intercode/sessions')).json as Json).active;
    if (active === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

async function open(): Promise<RawWs> {
  const socket = await RawWs.open(server.wsUrl);
  sockets.push(socket);
  return socket;
}

function observation(frame: Json): Json {
  expectKeys(frame, ['type', 'data'], ['request_id']);
  expect(frame.type, JSON.stringify(frame)).toBe('observation');
  return frame.data as Json;
}

describe('reset, step, state frames', () => {
  it('state before reset, then reset, step and state: exact frames, episode continuity', async () => {
    const ws = await open();
    const before = await ws.request({ type: 'state' });
    expectKeys(before, ['type', 'data']);
    expect(before.type).toBe('state');
    expect(expectState(before.data)).toMatchObject({
      episode_id: null,
      step_count: 0,
      task_id: null,
      done: false,
    });

    const task = DEMO_SQL_TASKS[6]!;
    const reset = observation(
      await ws.request({ type: 'reset', data: { task_id: task.id, episode_id: 'ws-1' } }),
    );
    expect(expectResetEnvelope(reset).info).toMatchObject({ task_id: task.id, index: 6, episode_id: 'ws-1' });
    expect((reset.observation as Json).instruction).toBe(task.query);
    expect(JSON.stringify(reset)).not.toContain(task.gold);

    const step = observation(await ws.request({ type: 'step', data: { code: task.gold } }));
    expect(expectStepEnvelope(step)).toMatchObject({ reward: 0, done: false, observation: { turn: 1 } });
    const state = await ws.request({ type: 'state' });
    expect(expectState(state.data)).toEqual({
      episode_id: 'ws-1',
      step_count: 1,
      dataset: 'demo/sql',
      task_id: task.id,
      done: false,
      max_turns: 4,
    });
    const submit = observation(await ws.request({ type: 'step', data: { code: 'submit' } }));
    expect(expectStepEnvelope(submit)).toMatchObject({
      reward: 1,
      done: true,
      terminated: true,
      truncated: false,
    });
    expect(ws.pending).toBe(0);
  });

  it('reset without data is task 0; reset again starts a new episode on the same socket', async () => {
    const ws = await open();
    const first = expectResetEnvelope(observation(await ws.request({ type: 'reset' })));
    expect(first.info).toMatchObject({ index: 0, task_id: DEMO_SQL_TASKS[0]!.id });
    await ws.request({ type: 'step', data: { code: 'SELECT 1' } });
    const second = expectResetEnvelope(observation(await ws.request({ type: 'reset', data: { seed: 2 } })));
    expect((second.info as Json).index).toBe(2);
    expect((second.info as Json).episode_id).not.toBe((first.info as Json).episode_id);
    expect(expectState((await ws.request({ type: 'state' })).data).step_count).toBe(0);
  });

  it('a step with metadata is accepted; unknown reset keys are listed in info.ignored_keys', async () => {
    const ws = await open();
    const reset = observation(await ws.request({ type: 'reset', data: { seed: 1, split: 'test' } }));
    expect((expectResetEnvelope(reset).info as Json).ignored_keys).toEqual(['split']);
    const step = observation(
      await ws.request({ type: 'step', data: { code: 'SELECT 1', metadata: { k: 1 } } }),
    );
    expectStepEnvelope(step);
  });

  it('max_turns from reset truncates: done = terminated || truncated', async () => {
    const ws = await open();
    observation(await ws.request({ type: 'reset', data: { max_turns: 1 } }));
    const step = observation(await ws.request({ type: 'step', data: { code: 'SELECT 1' } }));
    expect(expectStepEnvelope(step)).toMatchObject({ done: true, terminated: false, truncated: true });
  });

  it('skip ends the episode with reward 0, terminated', async () => {
    const ws = await open();
    observation(await ws.request({ type: 'reset' }));
    const step = observation(await ws.request({ type: 'step', data: { code: 'skip' } }));
    expect(expectStepEnvelope(step)).toMatchObject({ reward: 0, done: true, terminated: true });
  });
});

describe('errors: one error frame per bad message, the connection stays open', () => {
  it('INVALID_JSON, UNKNOWN_TYPE, VALIDATION_ERROR; the socket still serves afterwards', async () => {
    const ws = await open();
    ws.send('hello');
    expectErrorFrame((await ws.next()).json, 'INVALID_JSON');
    ws.send('{"type":"reset"');
    expectErrorFrame((await ws.next()).json, 'INVALID_JSON');
    for (const type of ['foo', 'STEP', '__proto__', 'constructor', 'toString']) {
      const data = expectErrorFrame(await ws.request({ type }), 'UNKNOWN_TYPE');
      expect(data.message).toContain(type);
    }
    const extra = expectErrorFrame(await ws.request({ type: 'state', data: {} }), 'VALIDATION_ERROR', [
      'errors',
    ]);
    expect(Array.isArray(extra.errors)).toBe(true);
    expect((extra.errors as unknown[]).length).toBeGreaterThan(0);
    expectErrorFrame(await ws.request({ type: 'reset', data: {}, extra: 1 }), 'VALIDATION_ERROR', ['errors']);
    expect(ws.isClosed).toBe(false);
    expect((await ws.request({ type: 'state' })).type).toBe('state');
  });

  it('a bad action in step → VALIDATION_ERROR with errors located at ["code"]', async () => {
    const ws = await open();
    observation(await ws.request({ type: 'reset' }));
    for (const data of [{ code: 5 }, {}, { code: 'SELECT 1', shell: true }, 'SELECT 1']) {
      const error = expectErrorFrame(await ws.request({ type: 'step', data }), 'VALIDATION_ERROR', [
        'errors',
      ]);
      const errors = error.errors as Json[];
      expect(errors.length, JSON.stringify(data)).toBeGreaterThan(0);
      for (const item of errors) expectKeys(item, ['type', 'loc', 'msg', 'input'], ['ctx', 'url']);
      if (typeof data === 'object' && !('shell' in data)) {
        expect(errors.map((item) => item.loc)).toContainEqual(['code']);
      }
    }
    // The episode is untouched by the refused frames.
    expect(expectState((await ws.request({ type: 'state' })).data).step_count).toBe(0);
  });

  it('bad reset params → VALIDATION_ERROR naming the field; a setting foreign to sql too', async () => {
    const ws = await open();
    for (const data of [{ seed: -1 }, { task_id: 3 }, { episode_id: 'x'.repeat(256) }, { max_turns: 0 }]) {
      const error = expectErrorFrame(await ws.request({ type: 'reset', data }), 'VALIDATION_ERROR', [
        'errors',
      ]);
      const field = Object.keys(data)[0]!;
      expect(JSON.stringify(error.errors), JSON.stringify(data)).toContain(field);
    }
    const image = await ws.request({ type: 'reset', data: { image: 'debian' } });
    expect(expectErrorFrame(image, 'VALIDATION_ERROR', ['errors']).message).toContain('image');
  });

  it('step before reset → NOT_RESET; step after done → EPISODE_DONE; reset recovers', async () => {
    const ws = await open();
    expectErrorFrame(await ws.request({ type: 'step', data: { code: 'SELECT 1' } }), 'NOT_RESET');
    observation(await ws.request({ type: 'reset' }));
    expect(observation(await ws.request({ type: 'step', data: { code: 'submit' } })).done).toBe(true);
    expectErrorFrame(await ws.request({ type: 'step', data: { code: 'SELECT 1' } }), 'EPISODE_DONE');
    expectResetEnvelope(observation(await ws.request({ type: 'reset' })));
    expectStepEnvelope(observation(await ws.request({ type: 'step', data: { code: 'SELECT 1' } })));
  });
});

describe('request_id, mcp and close frames', () => {
  it('request_id (string or number) is echoed top-level, on replies and on errors; absent when not sent', async () => {
    const ws = await open();
    const reset = await ws.request({ type: 'reset', data: {}, request_id: 'r-1' });
    expect(reset.request_id).toBe('r-1');
    expectResetEnvelope(observation(reset));
    const step = await ws.request({ type: 'step', data: { code: 'SELECT 1' }, request_id: 7 });
    expect(step.request_id).toBe(7);
    const state = await ws.request({ type: 'state', request_id: 'r-3' });
    expect(state).toMatchObject({ type: 'state', request_id: 'r-3' });
    const error = await ws.request({ type: 'nope', request_id: 'r-4' });
    expectErrorFrame(error, 'UNKNOWN_TYPE');
    expect(error.request_id).toBe('r-4');
    const plain = await ws.request({ type: 'state' });
    expect(plain).not.toHaveProperty('request_id');
  });

  it('an mcp frame gets exactly one mcp reply carrying the JSON-RPC id', async () => {
    const ws = await open();
    const reply = await ws.request({
      type: 'mcp',
      data: { jsonrpc: '2.0', method: 'tools/list', params: {}, id: 1 },
    });
    expectKeys(reply, ['type', 'data']);
    expect(reply.type).toBe('mcp');
    const rpc = reply.data as Json;
    expect(rpc.jsonrpc).toBe('2.0');
    expect(rpc.id).toBe(1);
    expect('result' in rpc || 'error' in rpc).toBe(true);
    const bad = await ws.request({ type: 'mcp', data: { jsonrpc: '2.0', method: 'no/such', id: 2 } });
    expect(bad.type).toBe('mcp');
    expect(((bad.data as Json).error as Json).code).toBe(-32601);
    expect(ws.pending).toBe(0);
  });

  it('close: no reply, the server closes the socket and frees the session', async () => {
    const ws = await open();
    observation(await ws.request({ type: 'reset' }));
    expect(((await jsonHttp(server.url, 'GET', '/intercode/sessions')).json as Json).active).toBe(1);
    ws.sendJson({ type: 'close' });
    const closed = await ws.closed;
    expect(ws.pending, 'no reply to close').toBe(0);
    expect([1000, 1001, 1005]).toContain(closed.code);
    const started = Date.now();
    let active: unknown = 1;
    while (Date.now() - started < 10_000 && active !== 0) {
      active = ((await jsonHttp(server.url, 'GET', '/intercode/sessions')).json as Json).active;
    }
    expect(active).toBe(0);
  });
});

describe('capacity', () => {
  it('over max sessions: CAPACITY_REACHED sent on connect without a client frame, then close 1013', async () => {
    const held = [];
    for (let i = 0; i < MAX; i += 1) held.push(await open());
    for (const ws of held) expect((await ws.request({ type: 'state' })).type).toBe('state');
    const over = await RawWs.open(server.wsUrl);
    sockets.push(over);
    const frame = await over.next();
    expect(
      expectErrorFrame(frame.json, 'CAPACITY_REACHED', ['active_sessions', 'max_sessions']),
    ).toMatchObject({
      active_sessions: MAX,
      max_sessions: MAX,
    });
    expect((await over.closed).code).toBe(1013);
    // The sessions held are untouched; one freed slot lets a new client in.
    expectResetEnvelope(observation(await held[0]!.request({ type: 'reset' })));
    await held[1]!.close();
    let next: RawWs | undefined;
    for (let attempt = 0; attempt < 50 && !next; attempt += 1) {
      const candidate = await open();
      const reply = await candidate.request({ type: 'state' }).catch(() => undefined);
      if (reply?.type === 'state') next = candidate;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(next, 'a slot freed by a close is reusable').toBeDefined();
  });
});
