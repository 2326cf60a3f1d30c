import { describe, expect } from 'vitest';
import { DEMO_SQL_TASKS } from '../../src/datasets/demo/demo-sql-tasks.js';
import { jsonHttp, rawHttp } from '../support/server/raw-http.js';
import type { ServedIntercode } from '../support/server/served-intercode.js';
import { it } from '../support/server/server-fixture.js';
import {
  expectErrorBody,
  expectKeys,
  expectResetEnvelope,
  expectState,
  expectStepEnvelope,
  expectValidationList,
} from '../support/server/wire-shapes.js';

// POST /reset, POST /step, GET /state (OpenEnv §3: stateless, FastAPI-style 422s) and our stateful
// HTTP sessions (/intercode/sessions + X-Session-Id / session_id), on demo/sql (SQLite), with raw
// node:http requests whose bodies are written out exactly.

type Json = Record<string, unknown>;
let server: ServedIntercode;
const JSON_HEADERS = { 'content-type': 'application/json' };
const TASK0 = DEMO_SQL_TASKS[0]!;
const N = DEMO_SQL_TASKS.length;

it.beforeAll(async ({ intercodeServe }) => {
  server = await intercodeServe(['--dataset', 'demo/sql', '--max-sessions', '3', '--max-turns', '3']);
}, 120_000);

const post = (path: string, body: string | undefined, headers: Record<string, string> = JSON_HEADERS) =>
  rawHttp(server.url, { method: 'POST', path, headers, ...(body === undefined ? {} : { body }) });

async function openSession(): Promise<string> {
  const reply = await post('/intercode/sessions', '{}');
  expect(reply.status).toBe(201);
  expectKeys(reply.json, ['session_id']);
  const id = (reply.json as { session_id: string }).session_id;
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  return id;
}

async function closeSession(id: string): Promise<void> {
  const reply = await jsonHttp(server.url, 'DELETE', `/intercode/sessions/${id}`);
  expect(reply.status).toBe(200);
  expect(reply.json).toEqual({ session_id: id, closed: true });
}

describe('POST /reset (stateless)', () => {
  it('an empty body, no body type, and {} all give task 0 with reward null and the instruction', async () => {
    for (const [body, headers] of [
      [undefined, {}],
      ['', JSON_HEADERS],
      ['{}', JSON_HEADERS],
    ] as const) {
      const reply = await post('/reset', body, headers);
      expect(reply.status, JSON.stringify(body)).toBe(200);
      expect(reply.headers['content-type']).toMatch(/^application\/json/);
      const envelope = expectResetEnvelope(reply.json);
      expect(envelope.info).toMatchObject({ dataset: 'demo/sql', task_id: TASK0.id, index: 0 });
      expect((envelope.observation as Json).instruction).toBe(TASK0.query);
      expect((envelope.observation as Json).output).toBeTypeOf('string');
      expect(envelope.terminated).toBe(false);
      expect(envelope.truncated).toBe(false);
      expect(reply.text, 'the gold never leaves the server').not.toContain(TASK0.gold);
    }
  });

  it('seed maps to task seed mod size; task_id beats seed; index picks; episode_id is kept', async () => {
    const bySeed = (await post('/reset', JSON.stringify({ seed: N + 3 }))).json as Json;
    expect(expectResetEnvelope(bySeed).info).toMatchObject({ index: 3, task_id: DEMO_SQL_TASKS[3]!.id });
    const byId = await post('/reset', JSON.stringify({ seed: 2, task_id: DEMO_SQL_TASKS[5]!.id }));
    expect(expectResetEnvelope(byId.json).info).toMatchObject({ index: 5, task_id: DEMO_SQL_TASKS[5]!.id });
    const byIndex = await post('/reset', JSON.stringify({ index: 7 }));
    expect((expectResetEnvelope(byIndex.json).info as Json).index).toBe(7);
    const named = await post('/reset', JSON.stringify({ episode_id: 'run7-ep42' }));
    expect((expectResetEnvelope(named.json).info as Json).episode_id).toBe('run7-ep42');
    const a = (expectResetEnvelope((await post('/reset', '{}')).json).info as Json).episode_id;
    const b = (expectResetEnvelope((await post('/reset', '{}')).json).info as Json).episode_id;
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(a).not.toBe(b);
  });

  it('unknown keys are ignored and listed in info.ignored_keys', async () => {
    const reply = await post('/reset', JSON.stringify({ seed: 1, foo: 1, bar: 'x' }));
    expect(reply.status).toBe(200);
    const info = expectResetEnvelope(reply.json).info as Json;
    expect(info.index).toBe(1);
    expect([...(info.ignored_keys as string[])].sort()).toEqual(['bar', 'foo']);
  });

  it('a bad seed → 422 with a FastAPI detail list located at ["body","seed"]', async () => {
    for (const seed of [-1, 'x', 1.5]) {
      const reply = await post('/reset', JSON.stringify({ seed }));
      expect(reply.status, `seed ${JSON.stringify(seed)}`).toBe(422);
      const items = expectValidationList(reply.json);
      expect(items.map((item) => item.loc)).toContainEqual(['body', 'seed']);
      expect(items.find((item) => JSON.stringify(item.loc) === '["body","seed"]')?.input).toEqual(seed);
    }
  });

  it('other bad reset params → 422 at their own loc', async () => {
    for (const [body, field] of [
      [{ episode_id: 'e'.repeat(256) }, 'episode_id'],
      [{ task_id: 5 }, 'task_id'],
      [{ max_turns: 0 }, 'max_turns'],
      [{ index: -2 }, 'index'],
      [{ dataset: 7 }, 'dataset'],
    ] as const) {
      const reply = await post('/reset', JSON.stringify(body));
      expect(reply.status, JSON.stringify(body)).toBe(422);
      expect(expectValidationList(reply.json).map((item) => item.loc)).toContainEqual(['body', field]);
    }
  });

  it('a body that is not an object → 422; not JSON → 400 INVALID_JSON', async () => {
    for (const body of ['[]', '"seed"', '42']) {
      expect((await post('/reset', body)).status, body).toBe(422);
    }
    const broken = await post('/reset', '{"seed": 1');
    expect(broken.status).toBe(400);
    expectErrorBody(broken.json, 'INVALID_JSON');
  });

  it('a task or dataset that does not exist → an error naming it, never a stack', async () => {
    const task = await post('/reset', JSON.stringify({ task_id: 'no-such-task' }));
    expect(task.status).toBeGreaterThanOrEqual(400);
    expect(task.status).toBeLessThan(500);
    expect(task.text).toContain('no-such-task');
    const dataset = await post('/reset', JSON.stringify({ dataset: 'demo/nope' }));
    expect(dataset.status).toBeGreaterThanOrEqual(400);
    expect(dataset.status).toBeLessThan(500);
    expect(dataset.text).toContain('demo/nope');
    expect(task.text + dataset.text).not.toMatch(/\n\s+at /);
  });

  it('settings that do not apply to demo/sql (image, backend) and db_url are refused with 422', async () => {
    for (const body of [{ image: 'debian' }, { backend: 'docker' }, { db_url: 'mysql://x@localhost/db' }]) {
      const reply = await post('/reset', JSON.stringify(body));
      expect(reply.status, JSON.stringify(body)).toBe(422);
      expect(reply.text).toContain(Object.keys(body)[0]!);
    }
  });
});

describe('POST /step (stateless) and GET /state', () => {
  it('runs one step on a fresh env of task 0 and answers the step envelope', async () => {
    const reply = await post('/step', JSON.stringify({ action: { code: 'SELECT COUNT(*) FROM ships' } }));
    expect(reply.status).toBe(200);
    const envelope = expectStepEnvelope(reply.json);
    expect(envelope).toMatchObject({ reward: 0, done: false, terminated: false, truncated: false });
    const obs = envelope.observation as Json;
    expect(obs).toMatchObject({ task_id: TASK0.id, turn: 1, timed_out: false });
    expect(obs.output).toMatch(/\d/);
    expect((envelope.info as Json).admissible).toBe(true);
  });

  it('the env is fresh each time: submit right away scores 0 and ends the episode', async () => {
    await post('/step', JSON.stringify({ action: { code: TASK0.gold } }));
    const reply = await post('/step', JSON.stringify({ action: { code: 'submit' } }));
    expect(reply.status).toBe(200);
    expect(expectStepEnvelope(reply.json)).toMatchObject({
      reward: 0,
      done: true,
      terminated: true,
      truncated: false,
    });
  });

  it('a bad SQL query is data: 200, admissible false', async () => {
    const reply = await post('/step', JSON.stringify({ action: { code: 'SELEC nonsense' } }));
    expect(reply.status).toBe(200);
    expect((expectStepEnvelope(reply.json).info as Json).admissible).toBe(false);
  });

  it('a bad action → 422 located relative to the action (["code"])', async () => {
    for (const action of [{ code: 5 }, {}, { code: ['SELECT 1'] }, { code: null }]) {
      const reply = await post('/step', JSON.stringify({ action }));
      expect(reply.status, JSON.stringify(action)).toBe(422);
      expect(expectValidationList(reply.json).map((item) => item.loc)).toContainEqual(['code']);
    }
    const extra = await post('/step', JSON.stringify({ action: { code: 'SELECT 1', shell: true } }));
    expect(extra.status).toBe(422);
    expect(expectValidationList(extra.json).map((item) => item.loc)).toContainEqual(['shell']);
  });

  it('a bad step body → 422 at ["body", …]', async () => {
    for (const [body, loc] of [
      [{}, ['body', 'action']],
      [{ action: 'SELECT 1' }, ['body', 'action']],
      [{ action: { code: 'SELECT 1' }, timeout_s: 0 }, ['body', 'timeout_s']],
      [{ action: { code: 'SELECT 1' }, timeout_s: 'soon' }, ['body', 'timeout_s']],
      [{ action: { code: 'SELECT 1' }, request_id: 'r'.repeat(256) }, ['body', 'request_id']],
    ] as const) {
      const reply = await post('/step', JSON.stringify(body));
      expect(reply.status, JSON.stringify(body)).toBe(422);
      expect(
        expectValidationList(reply.json).map((item) => item.loc),
        JSON.stringify(body),
      ).toContainEqual(loc);
    }
  });

  it('request_id is echoed top-level, from the body or the X-Request-Id header', async () => {
    const fromBody = await post(
      '/step',
      JSON.stringify({ action: { code: 'SELECT 1' }, request_id: 'abc-1' }),
    );
    expect(expectStepEnvelope(fromBody.json, ['request_id']).request_id).toBe('abc-1');
    const fromHeader = await post('/step', JSON.stringify({ action: { code: 'SELECT 1' } }), {
      ...JSON_HEADERS,
      'x-request-id': 'hdr-2',
    });
    expect(expectStepEnvelope(fromHeader.json, ['request_id']).request_id).toBe('hdr-2');
    const reset = await post('/reset', '{}', { ...JSON_HEADERS, 'x-request-id': 'r-3' });
    expect(expectResetEnvelope(reset.json, ['request_id']).request_id).toBe('r-3');
    const plain = await post('/step', JSON.stringify({ action: { code: 'SELECT 1' } }));
    expect(plain.json as Json).not.toHaveProperty('request_id');
  });

  it('GET /state without a session: a fresh env, the six state keys', async () => {
    const reply = await jsonHttp(server.url, 'GET', '/state');
    expect(reply.status).toBe(200);
    expect(expectState(reply.json)).toMatchObject({ step_count: 0, done: false, max_turns: 3 });
  });
});

describe('stateful HTTP sessions (/intercode/sessions + X-Session-Id or session_id)', () => {
  it('plays a gold episode: reset, gold query, submit → reward 1, terminated; then EPISODE_DONE until reset', async () => {
    const id = await openSession();
    try {
      const task = DEMO_SQL_TASKS[4]!;
      const reset = await post('/reset', JSON.stringify({ task_id: task.id, episode_id: 'ep-1' }), {
        ...JSON_HEADERS,
        'x-session-id': id,
      });
      expect(reset.status).toBe(200);
      expect(expectResetEnvelope(reset.json).info).toMatchObject({ task_id: task.id, episode_id: 'ep-1' });
      const gold = await post('/step', JSON.stringify({ action: { code: task.gold }, session_id: id }));
      expect(expectStepEnvelope(gold.json)).toMatchObject({ done: false, observation: { turn: 1 } });
      const state = await jsonHttp(server.url, 'GET', '/state', undefined, { 'x-session-id': id });
      expect(expectState(state.json)).toEqual({
        episode_id: 'ep-1',
        step_count: 1,
        dataset: 'demo/sql',
        task_id: task.id,
        done: false,
        max_turns: 3,
      });
      const submit = await post('/step', JSON.stringify({ action: { code: 'submit' } }), {
        ...JSON_HEADERS,
        'x-session-id': id,
      });
      const last = expectStepEnvelope(submit.json);
      expect(last).toMatchObject({ reward: 1, done: true, terminated: true, truncated: false });
      expect(
        ((await jsonHttp(server.url, 'GET', '/state', undefined, { 'x-session-id': id })).json as Json).done,
      ).toBe(true);
      const after = await post('/step', JSON.stringify({ action: { code: 'SELECT 1' }, session_id: id }));
      expect(after.status).toBe(409);
      expectErrorBody(after.json, 'EPISODE_DONE');
      const again = await post('/reset', JSON.stringify({ seed: 1, session_id: id }));
      expect((expectResetEnvelope(again.json).info as Json).index).toBe(1);
    } finally {
      await closeSession(id);
    }
  });

  it('max_turns reached without submitting → truncated (done, not terminated)', async () => {
    const id = await openSession();
    try {
      await post('/reset', JSON.stringify({ session_id: id, max_turns: 2 }));
      const first = expectStepEnvelope(
        (await post('/step', JSON.stringify({ action: { code: 'SELECT 1' }, session_id: id }))).json,
      );
      expect(first).toMatchObject({ done: false, truncated: false });
      const second = expectStepEnvelope(
        (await post('/step', JSON.stringify({ action: { code: 'SELECT 2' }, session_id: id }))).json,
      );
      expect(second).toMatchObject({ done: true, terminated: false, truncated: true });
      const state = (await jsonHttp(server.url, 'GET', '/state', undefined, { 'x-session-id': id })).json;
      expect(expectState(state)).toMatchObject({ max_turns: 2, step_count: 2, done: true });
    } finally {
      await closeSession(id);
    }
  });

  it('the server default --max-turns 3 truncates the third step', async () => {
    const id = await openSession();
    try {
      await post('/reset', JSON.stringify({ session_id: id }));
      let last: Json = {};
      for (let turn = 1; turn <= 3; turn += 1) {
        last = expectStepEnvelope(
          (await post('/step', JSON.stringify({ action: { code: 'SELECT 1' }, session_id: id }))).json,
        );
        expect(last.done, `turn ${turn}`).toBe(turn === 3);
      }
      expect(last.truncated).toBe(true);
    } finally {
      await closeSession(id);
    }
  });

  it('a step before any reset → 409 NOT_RESET', async () => {
    const id = await openSession();
    try {
      const reply = await post('/step', JSON.stringify({ action: { code: 'SELECT 1' }, session_id: id }));
      expect(reply.status).toBe(409);
      expectErrorBody(reply.json, 'NOT_RESET');
    } finally {
      await closeSession(id);
    }
  });

  it('an unknown session id → 404 SESSION_NOT_FOUND on reset, step, state and delete', async () => {
    const ghost = '00000000-0000-4000-8000-000000000000';
    const replies = [
      await post('/reset', JSON.stringify({ session_id: ghost })),
      await post('/step', JSON.stringify({ action: { code: 'SELECT 1' }, session_id: ghost })),
      await jsonHttp(server.url, 'GET', '/state', undefined, { 'x-session-id': ghost }),
      await jsonHttp(server.url, 'DELETE', `/intercode/sessions/${ghost}`),
    ];
    for (const reply of replies) {
      expect(reply.status).toBe(404);
      expectErrorBody(reply.json, 'SESSION_NOT_FOUND');
    }
  });

  it('sessions count toward capacity: over max → 503 CAPACITY_REACHED, ready 503; freed by DELETE', async () => {
    const ids = [await openSession(), await openSession(), await openSession()];
    try {
      expect((await jsonHttp(server.url, 'GET', '/intercode/sessions')).json).toMatchObject({
        active: 3,
        max: 3,
      });
      const over = await post('/intercode/sessions', '{}');
      expect(over.status).toBe(503);
      expect(
        expectErrorBody(over.json, 'CAPACITY_REACHED', ['active_sessions', 'max_sessions']),
      ).toMatchObject({
        active_sessions: 3,
        max_sessions: 3,
      });
      const ready = await jsonHttp(server.url, 'GET', '/intercode/ready');
      expect(ready.status).toBe(503);
      expectKeys(ready.json, ['ready', 'reason']);
      expect((ready.json as Json).ready).toBe(false);
      expect((await jsonHttp(server.url, 'GET', '/health')).json).toEqual({ status: 'healthy' });
    } finally {
      for (const id of ids) await closeSession(id);
    }
    expect((await jsonHttp(server.url, 'GET', '/intercode/sessions')).json).toMatchObject({ active: 0 });
    const again = await openSession();
    await closeSession(again);
    const twice = await jsonHttp(server.url, 'DELETE', `/intercode/sessions/${again}`);
    expect(twice.status).toBe(404);
    expectErrorBody(twice.json, 'SESSION_NOT_FOUND');
  });
});
