import { describe, expect } from 'vitest';
import { bwrapMissing } from '../support/missing-components.js';
import { mib } from '../support/server/process-tree.js';
import { jsonHttp, rawHttp } from '../support/server/raw-http.js';
import { RawWs } from '../support/server/raw-ws.js';
import type { ServedIntercode } from '../support/server/served-intercode.js';
import {
  expectBackToBaseline,
  measureBaseline,
  type ServerBaseline,
  samplePeakRss,
} from '../support/server/server-baseline.js';
import { it } from '../support/server/server-fixture.js';
import { expectErrorFrame, expectStepEnvelope } from '../support/server/wire-shapes.js';

// Hostile session traffic on demo/bash, in real bwrap sandboxes, behind a token: 1,000 sessions opened
// with one token (WebSocket and HTTP), clients that vanish mid-step. A well-behaved client is served
// during and after; sessions, live sandboxes and RSS come back to the baseline (figures printed).

type Json = Record<string, unknown>;
const noBwrap = await bwrapMissing();
const TOKEN = 'hostile-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const MAX = 6;
const FLOOD = 1000;
let server: ServedIntercode;
let baseline: ServerBaseline;

it.beforeAll(async ({ intercodeServe }) => {
  if (noBwrap) return;
  server = await intercodeServe([
    '--host',
    '127.0.0.1',
    '--token',
    TOKEN,
    '--dataset',
    'demo/bash',
    '--max-sessions',
    String(MAX),
    '--step-timeout',
    '30',
  ]);
  const ws = await openWs();
  await ws.request({ type: 'reset' }, 120_000);
  await ws.request({ type: 'step', data: { code: 'echo warm' } });
  await ws.close();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  baseline = await measureBaseline(server, AUTH);
  console.log(
    `hostile baseline (demo/bash): rss ${mib(baseline.rssBytes)} MiB, sandboxes ${baseline.sandboxes}`,
  );
}, 180_000);

const opened: RawWs[] = [];

/** Opens a WS with the token; whatever a test leaves open is closed after it. */
async function openWs(): Promise<RawWs> {
  const ws = await RawWs.open(server.wsUrl, AUTH);
  opened.push(ws);
  return ws;
}

it.afterEach(async () => {
  await Promise.all(opened.splice(0).map((ws) => ws.close()));
});

/** Runs `work(i)` for i in [0, count) with at most `width` at a time. */
async function pool<T>(count: number, width: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next;
        next += 1;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

async function goodStep(ws: RawWs, text: string): Promise<void> {
  const reply = await ws.request({ type: 'step', data: { code: `echo ${text}` } }, 60_000);
  expect(reply.type, JSON.stringify(reply)).toBe('observation');
  const envelope = expectStepEnvelope(reply.data);
  expect(((envelope.observation as Json).output as string).trim()).toBe(text);
  // The server's --max-turns ends the episode now and then: a well-behaved client resets then.
  if (envelope.done === true) expect((await ws.request({ type: 'reset' }, 120_000)).type).toBe('observation');
}

describe('1,000 sessions opened by one token', () => {
  it('over WebSocket: CAPACITY_REACHED + close 1013 past the max; a well-behaved client is served during and after', async ({
    needs,
  }) => {
    needs(noBwrap);
    const good = await openWs();
    await good.request({ type: 'reset' }, 120_000);
    const peak = samplePeakRss(server);
    const granted: RawWs[] = [];
    const closeCodes = new Map<number, number>();
    let goodSteps = 0;
    let flooding = true;
    const during = (async () => {
      while (flooding) {
        await goodStep(good, `during-${goodSteps}`);
        goodSteps += 1;
        expect((await jsonHttp(server.url, 'GET', '/health')).status).toBe(200);
      }
    })();
    const started = Date.now();
    try {
      await pool(FLOOD, 50, async () => {
        const ws = await openWs();
        ws.sendJson({ type: 'state' });
        const first = (await ws.next(60_000)).json as Json;
        if (first.type === 'state') {
          granted.push(ws);
          return;
        }
        expectErrorFrame(first, 'CAPACITY_REACHED', ['active_sessions', 'max_sessions']);
        expect((first.data as Json).max_sessions).toBe(MAX);
        const { code } = await ws.closed;
        closeCodes.set(code, (closeCodes.get(code) ?? 0) + 1);
      });
    } finally {
      flooding = false;
      await during;
    }
    const floodS = (Date.now() - started) / 1000;
    // The slots taken by the flood work: each gets a sandbox.
    await Promise.all(granted.map((ws) => ws.request({ type: 'reset' }, 180_000)));
    const held = server.sandboxes();
    console.log(
      `hostile ws-flood: ${FLOOD} connections in ${floodS.toFixed(1)} s: ${granted.length} sessions, ` +
        `${FLOOD - granted.length} CAPACITY_REACHED (close codes ${JSON.stringify(Object.fromEntries(closeCodes))}), ` +
        `${goodSteps} well-behaved steps served during it, ${held} sandboxes held`,
    );
    expect(granted.length).toBe(MAX - 1);
    expect(closeCodes.get(1013)).toBe(FLOOD - granted.length);
    expect(goodSteps).toBeGreaterThan(0);
    await Promise.all(granted.map((ws) => ws.close()));
    await goodStep(good, 'after');
    await good.close();
    const late = await openWs();
    expect((await late.request({ type: 'reset' }, 120_000)).type).toBe('observation');
    await goodStep(late, 'newcomer');
    await late.close();
    await expectBackToBaseline(server, baseline, 'ws-flood', { headers: AUTH, peakRssBytes: peak.stop() });
  }, 600_000);

  it('over HTTP: 201 up to the max, then 503 CAPACITY_REACHED; all deleted, back to baseline', async ({
    needs,
  }) => {
    needs(noBwrap);
    const peak = samplePeakRss(server);
    const replies = await pool(FLOOD, 50, () =>
      rawHttp(server.url, {
        method: 'POST',
        path: '/intercode/sessions',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: '{}',
      }),
    );
    const created = replies.filter((reply) => reply.status === 201);
    const refused = replies.filter((reply) => reply.status === 503);
    console.log(
      `hostile http-flood: ${FLOOD} POST /intercode/sessions: ${created.length} × 201, ${refused.length} × 503`,
    );
    expect(created.length).toBe(MAX);
    expect(refused.length).toBe(FLOOD - MAX);
    expect((refused[0]!.json as Json).code).toBe('CAPACITY_REACHED');
    const ids = created.map((reply) => (reply.json as { session_id: string }).session_id);
    await Promise.all(ids.map((id) => jsonHttp(server.url, 'POST', '/reset', { session_id: id }, AUTH)));
    expect((await jsonHttp(server.url, 'GET', '/health')).status).toBe(200);
    for (const id of ids) {
      expect(
        (await jsonHttp(server.url, 'DELETE', `/intercode/sessions/${id}`, undefined, AUTH)).status,
      ).toBe(200);
    }
    await expectBackToBaseline(server, baseline, 'http-flood', { headers: AUTH, peakRssBytes: peak.stop() });
  }, 600_000);
});

describe('a client that disconnects mid-step', () => {
  it('over WebSocket: the session and its sandboxes are closed; others are served', async ({ needs }) => {
    needs(noBwrap);
    const other = await openWs();
    await other.request({ type: 'reset' }, 120_000);
    for (let round = 0; round < 3; round += 1) {
      const ws = await openWs();
      await ws.request({ type: 'reset' }, 120_000);
      ws.sendJson({ type: 'step', data: { code: 'sleep 2; echo finished' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      ws.terminate();
      await goodStep(other, `meanwhile-${round}`);
    }
    await other.close();
    await expectBackToBaseline(server, baseline, 'ws-disconnect-mid-step', { headers: AUTH });
  }, 300_000);

  it('over HTTP: the request is dropped, the session lives on and serves the next step', async ({
    needs,
  }) => {
    needs(noBwrap);
    const created = await jsonHttp(server.url, 'POST', '/intercode/sessions', {}, AUTH);
    const id = (created.json as { session_id: string }).session_id;
    const headers = { ...AUTH, 'x-session-id': id };
    expect((await jsonHttp(server.url, 'POST', '/reset', {}, headers)).status).toBe(200);
    const dropped = await rawHttp(server.url, {
      method: 'POST',
      path: '/step',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ action: { code: 'sleep 2; echo finished' } }),
      timeoutMs: 300,
    }).catch((error: Error) => error);
    expect(dropped).toBeInstanceOf(Error);
    let reply = await jsonHttp(server.url, 'POST', '/step', { action: { code: 'echo next' } }, headers);
    for (let wait = 0; reply.status === 409 && wait < 100; wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      reply = await jsonHttp(server.url, 'POST', '/step', { action: { code: 'echo next' } }, headers);
    }
    expect(reply.status).toBe(200);
    expect(((expectStepEnvelope(reply.json).observation as Json).output as string).trim()).toBe('next');
    expect((await jsonHttp(server.url, 'DELETE', `/intercode/sessions/${id}`, undefined, AUTH)).status).toBe(
      200,
    );
    await expectBackToBaseline(server, baseline, 'http-disconnect-mid-step', { headers: AUTH });
  }, 300_000);
});
