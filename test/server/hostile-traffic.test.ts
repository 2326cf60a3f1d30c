import { describe, expect } from 'vitest';
import { jsonHttp, type RawResponse, rawHttp } from '../support/server/raw-http.js';
import { RawWs } from '../support/server/raw-ws.js';
import type { ServedIntercode } from '../support/server/served-intercode.js';
import {
  expectBackToBaseline,
  measureBaseline,
  type ServerBaseline,
  samplePeakRss,
} from '../support/server/server-baseline.js';
import { it } from '../support/server/server-fixture.js';
import { slowloris } from '../support/server/slowloris.js';
import {
  expectErrorBody,
  expectErrorFrame,
  expectStepEnvelope,
  expectValidationList,
} from '../support/server/wire-shapes.js';

// Hostile traffic against `intercode serve` on demo/sql (spec "Hostile-traffic guarantees"): oversized
// bodies and frames, wrong types, unknown session ids, unknown frame types, deep JSON, slowloris. Each
// case gets an error reply or a clean close, a well-behaved client is served right after, and the
// server's RSS and sessions come back to their baseline (the figures are printed).

type Json = Record<string, unknown>;
const MAX_BYTES = 65_536;
let server: ServedIntercode;
let baseline: ServerBaseline;

it.beforeAll(async ({ intercodeServe }) => {
  server = await intercodeServe([
    '--dataset',
    'demo/sql',
    '--max-sessions',
    '8',
    '--max-message-bytes',
    String(MAX_BYTES),
  ]);
  // Warm up: the run pool opens its run on first use; the baseline is the server at rest after it.
  const ws = await RawWs.open(server.wsUrl);
  await ws.request({ type: 'reset' });
  await ws.request({ type: 'step', data: { code: 'SELECT 1' } });
  await ws.close();
  await jsonHttp(server.url, 'POST', '/step', { action: { code: 'SELECT 1' } });
  await new Promise((resolve) => setTimeout(resolve, 500));
  baseline = await measureBaseline(server);
  console.log(
    `hostile baseline (demo/sql): rss ${(baseline.rssBytes / 2 ** 20).toFixed(1)} MiB, sandboxes ${baseline.sandboxes}`,
  );
}, 120_000);

/** A well-behaved client: one WS episode step and one stateless HTTP step both answer. */
async function stillServes(): Promise<void> {
  const ws = await RawWs.open(server.wsUrl);
  try {
    expect((await ws.request({ type: 'reset' })).type).toBe('observation');
    const step = await ws.request({ type: 'step', data: { code: 'SELECT COUNT(*) FROM ports' } });
    expectStepEnvelope(step.data);
  } finally {
    await ws.close();
  }
  const reply = await jsonHttp(server.url, 'POST', '/step', { action: { code: 'SELECT 1' } });
  expect(reply.status).toBe(200);
}

const post = (path: string, body: string, extra: Partial<Parameters<typeof rawHttp>[1]> = {}) =>
  rawHttp(server.url, {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body,
    ...extra,
  });

function nested(depth: number, leaf = '1'): string {
  return `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
}

describe('hostile traffic', () => {
  it('oversized bodies → 413 PAYLOAD_TOO_LARGE; oversized WS frame → close 1009; huge header → 431', async () => {
    const padded = JSON.stringify({ action: { code: `SELECT '${'x'.repeat(MAX_BYTES)}'` } });
    for (const path of ['/step', '/reset', '/intercode/sessions', '/mcp']) {
      const reply = await post(path, padded);
      expect(reply.status, path).toBe(413);
      expectErrorBody(reply.json, 'PAYLOAD_TOO_LARGE');
    }
    // Announced too large: refused from the header, without waiting for 100 MB that never come.
    const announced = await post('/step', '{"action":', {
      headers: { 'content-type': 'application/json', 'content-length': '100000000' },
    });
    expect(announced.status).toBe(413);
    // No Content-Length at all: counted as it streams in.
    const chunked: RawResponse | Error = await post(
      '/step',
      JSON.stringify({ action: { code: 'x'.repeat(4 * MAX_BYTES) } }),
      {
        chunked: true,
      },
    ).catch((error: Error) => error);
    if (chunked instanceof Error) expect(chunked.message).toMatch(/ECONNRESET|EPIPE|socket hang up/);
    else expect(chunked.status).toBe(413);
    const header = await rawHttp(server.url, { path: '/health', headers: { 'x-big': 'h'.repeat(20_000) } });
    expect(header.status).toBe(431);

    const ws = await RawWs.open(server.wsUrl);
    await ws.request({ type: 'reset' });
    ws.sendJson({ type: 'step', data: { code: 'x'.repeat(MAX_BYTES + 1) } });
    expect((await ws.closed).code).toBe(1009);
    await stillServes();
    await expectBackToBaseline(server, baseline, 'oversized bodies');
  });

  it('wrong types → 422 detail lists over HTTP, one VALIDATION_ERROR frame each over WS', async () => {
    const bodies: [string, string][] = [
      ['/reset', '{"seed":"3"}'],
      ['/reset', '{"task_id":{"$gt":""}}'],
      ['/reset', '{"max_turns":1e309}'],
      ['/reset', '{"episode_id":["a"]}'],
      ['/step', '{"action":"SELECT 1"}'],
      ['/step', '{"action":{"code":{"toString":"x"}}}'],
      ['/step', '{"action":{"code":"SELECT 1","metadata":"m"}}'],
      ['/step', '{"action":[{"code":"SELECT 1"}]}'],
      ['/step', '[]'],
      ['/step', 'true'],
      ['/intercode/sessions', '{"max_turns":"ten"}'],
    ];
    for (const [path, body] of bodies) {
      const reply = await post(path, body);
      expect(reply.status, `${path} ${body}`).toBe(422);
      expectValidationList(reply.json);
    }
    const ws = await RawWs.open(server.wsUrl);
    try {
      await ws.request({ type: 'reset' });
      const frames: [string, readonly string[]][] = [
        ['{"type":"step","data":"SELECT 1"}', ['VALIDATION_ERROR']],
        ['{"type":"step","data":{"code":1}}', ['VALIDATION_ERROR']],
        ['{"type":"step","data":null}', ['VALIDATION_ERROR']],
        ['{"type":"reset","data":[1]}', ['VALIDATION_ERROR']],
        ['{"type":"reset","data":{"seed":"1"}}', ['VALIDATION_ERROR']],
        ['{"type":"state","request_id":{"a":1}}', ['VALIDATION_ERROR']],
        ['{"type":5}', ['VALIDATION_ERROR', 'UNKNOWN_TYPE']],
        ['{"type":null}', ['VALIDATION_ERROR', 'UNKNOWN_TYPE']],
        ['{}', ['VALIDATION_ERROR', 'UNKNOWN_TYPE']],
        ['null', ['VALIDATION_ERROR', 'INVALID_JSON']],
        ['[]', ['VALIDATION_ERROR', 'INVALID_JSON']],
        ['42', ['VALIDATION_ERROR', 'INVALID_JSON']],
        ['"step"', ['VALIDATION_ERROR', 'INVALID_JSON']],
      ];
      for (const [text, codes] of frames) {
        ws.send(text);
        const reply = (await ws.next()).json as Json;
        expect(reply.type, text).toBe('error');
        expect(codes, `${text} → ${JSON.stringify(reply)}`).toContain((reply.data as Json).code);
      }
      expect(ws.isClosed).toBe(false);
      expect((await ws.request({ type: 'step', data: { code: 'SELECT 2' } })).type).toBe('observation');
    } finally {
      await ws.close();
    }
    await stillServes();
    await expectBackToBaseline(server, baseline, 'wrong types');
  });

  it('unknown session ids → 404 SESSION_NOT_FOUND, whatever their shape', async () => {
    const created = await jsonHttp(server.url, 'POST', '/intercode/sessions', {});
    const closed = (created.json as { session_id: string }).session_id;
    await jsonHttp(server.url, 'DELETE', `/intercode/sessions/${closed}`);
    const ids = [
      closed,
      '00000000-0000-4000-8000-000000000000',
      'x'.repeat(2000),
      '../../etc/passwd',
      '__proto__',
      '1 OR 1=1',
    ];
    for (const id of ids) {
      const step = await post('/step', JSON.stringify({ action: { code: 'SELECT 1' }, session_id: id }));
      expect(step.status, id.slice(0, 40)).toBe(404);
      expectErrorBody(step.json, 'SESSION_NOT_FOUND');
      const state = await jsonHttp(server.url, 'GET', '/state', undefined, { 'x-session-id': id });
      expect(state.status, id.slice(0, 40)).toBe(404);
      const del = await jsonHttp(server.url, 'DELETE', `/intercode/sessions/${encodeURIComponent(id)}`);
      expect(del.status, id.slice(0, 40)).toBe(404);
    }
    await stillServes();
    await expectBackToBaseline(server, baseline, 'unknown session ids');
  });

  it('1,000 frames of unknown types sent at once → 1,000 UNKNOWN_TYPE replies in order, socket open', async () => {
    const ws = await RawWs.open(server.wsUrl);
    const peak = samplePeakRss(server);
    try {
      for (let i = 0; i < 1000; i += 1) ws.sendJson({ type: `t${i}`, request_id: i });
      for (let i = 0; i < 1000; i += 1) {
        const reply = (await ws.next()).json as Json;
        expect(reply.request_id).toBe(i);
        expectErrorFrame(reply, 'UNKNOWN_TYPE');
      }
      expect((await ws.request({ type: 'state' })).type).toBe('state');
    } finally {
      await ws.close();
    }
    await stillServes();
    await expectBackToBaseline(server, baseline, 'unknown frame types', { peakRssBytes: peak.stop() });
  });

  it('JSON nested 100 deep → 422 / VALIDATION_ERROR; 5,000 deep does not take the server down', async () => {
    const deepMetadata = `{"action":{"code":"SELECT 1","metadata":${nested(100)}}}`;
    for (const [path, body] of [
      ['/step', deepMetadata],
      ['/reset', `{"seed":1,"extra":${nested(100)}}`],
      ['/reset', `{"seed":1,"extra":${'['.repeat(5000)}${']'.repeat(5000)}}`],
      ['/step', nested(5000)],
    ] as const) {
      const reply = await post(path, body);
      expect(reply.status, `${path} ${body.slice(0, 40)}`).toBe(422);
    }
    const shallow = await post('/step', `{"action":{"code":"SELECT 1","metadata":${nested(20)}}}`);
    expect(shallow.status, 'metadata 20 deep is fine').toBe(200);
    const ws = await RawWs.open(server.wsUrl);
    try {
      await ws.request({ type: 'reset' });
      ws.send(`{"type":"step","data":{"code":"SELECT 1","metadata":${nested(100)}}}`);
      expectErrorFrame((await ws.next()).json, 'VALIDATION_ERROR', ['errors']);
      ws.send(`{"type":"reset","data":${nested(5000)}}`);
      expectErrorFrame((await ws.next()).json, 'VALIDATION_ERROR', ['errors']);
      expect((await ws.request({ type: 'step', data: { code: 'SELECT 3' } })).type).toBe('observation');
    } finally {
      await ws.close();
    }
    await stillServes();
    await expectBackToBaseline(server, baseline, 'deep JSON');
  });

  it('slowloris: dribbled request heads are closed by the server; others are served meanwhile', async () => {
    const peak = samplePeakRss(server);
    const lorises = Array.from({ length: 20 }, () => slowloris(server.port, 500, 90_000));
    let served = 0;
    const started = Date.now();
    // While they dribble, a well-behaved client keeps being served.
    while (Date.now() - started < 5_000) {
      const health = await jsonHttp(server.url, 'GET', '/health');
      expect(health.status).toBe(200);
      served += 1;
      await stillServes();
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const ends = await Promise.all(lorises);
    const seconds = ends.map((end) => end.seconds);
    console.log(
      `hostile slowloris: ${ends.length} connections closed by the server after ${Math.min(...seconds).toFixed(1)}–${Math.max(...seconds).toFixed(1)} s; ${served} well-behaved rounds served meanwhile; replies: ${[...new Set(ends.map((end) => end.reply.split('\r\n')[0] || '(none)'))].join(', ')}`,
    );
    for (const end of ends) {
      expect(end.closedByServer, 'closed by the server, not by our deadline').toBe(true);
      expect(end.seconds).toBeLessThan(60);
    }
    await stillServes();
    await expectBackToBaseline(server, baseline, 'slowloris', { peakRssBytes: peak.stop() });
  }, 180_000);
});
