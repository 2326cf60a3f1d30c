import { existsSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { bwrapMissing } from '../support/missing-components.js';
import { descendants } from '../support/server/process-tree.js';
import { jsonHttp } from '../support/server/raw-http.js';
import { RawWs } from '../support/server/raw-ws.js';
import { it } from '../support/server/server-fixture.js';
import { expectErrorBody } from '../support/server/wire-shapes.js';

// Session lifetime on the wire: the idle reaper (WS close 1000 "idle timeout"; an HTTP session
// forgotten; state frames do not count as activity) and graceful shutdown on SIGTERM (WS close 1001,
// every sandbox reaped, exit 0).

type Json = Record<string, unknown>;
const noBwrap = await bwrapMissing();

describe('idle timeout', () => {
  it('an idle WS session is closed with 1000 "idle timeout" even while it sends state frames', async ({
    intercodeServe,
  }) => {
    const server = await intercodeServe(['--dataset', 'demo/sql', '--idle-timeout', '5']);
    try {
      const busy = await RawWs.open(server.wsUrl);
      const idle = await RawWs.open(server.wsUrl);
      await busy.request({ type: 'reset' });
      await idle.request({ type: 'reset' });
      const started = Date.now();
      // `busy` steps every 250 ms and stays; `idle` only asks for its state, which is not activity.
      while (!idle.isClosed && Date.now() - started < 30_000) {
        const step = await busy.request({ type: 'step', data: { code: 'SELECT 1' } });
        expect(step.type === 'observation' || step.type === 'error').toBe(true);
        if ((step.data as Json).done === true || step.type === 'error') await busy.request({ type: 'reset' });
        idle.sendJson({ type: 'state' });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const closed = await idle.closed;
      const seconds = (Date.now() - started) / 1000;
      console.log(
        `conformance-lifecycle: idle WS session closed after ${seconds.toFixed(1)} s (idle timeout 5 s)`,
      );
      expect(closed).toEqual({ code: 1000, reason: 'idle timeout' });
      expect(busy.isClosed).toBe(false);
      expect((await busy.request({ type: 'state' })).type).toBe('state');
      await busy.close();
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('an idle HTTP session is reaped: 404 SESSION_NOT_FOUND afterwards', async ({ intercodeServe }) => {
    const server = await intercodeServe(['--dataset', 'demo/sql', '--idle-timeout', '2']);
    try {
      const created = await jsonHttp(server.url, 'POST', '/intercode/sessions', {});
      const id = (created.json as { session_id: string }).session_id;
      expect((await jsonHttp(server.url, 'POST', '/reset', { session_id: id })).status).toBe(200);
      let reply = await jsonHttp(server.url, 'GET', '/state', undefined, { 'x-session-id': id });
      const started = Date.now();
      while (reply.status === 200 && Date.now() - started < 30_000) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        reply = await jsonHttp(server.url, 'GET', '/state', undefined, { 'x-session-id': id });
      }
      expect(reply.status).toBe(404);
      expectErrorBody(reply.json, 'SESSION_NOT_FOUND');
      expect(((await jsonHttp(server.url, 'GET', '/intercode/sessions')).json as Json).active).toBe(0);
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe('keepalive', () => {
  it('the server pings every --ping-interval; a peer that never answers is dropped, one that does stays', async ({
    intercodeServe,
  }) => {
    const server = await intercodeServe(['--dataset', 'demo/sql', '--ping-interval', '2']);
    try {
      const answering = await RawWs.open(server.wsUrl);
      const silent = await RawWs.open(server.wsUrl, {}, { autoPong: false });
      const started = Date.now();
      const closed = await Promise.race([
        silent.closed,
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 30_000)),
      ]);
      const seconds = (Date.now() - started) / 1000;
      console.log(
        `conformance-lifecycle: pong-less peer dropped after ${seconds.toFixed(1)} s (code ${String(closed?.code)}); the answering peer got ${answering.pings} pings`,
      );
      expect(closed, 'the silent peer was dropped').toBeDefined();
      expect(silent.pings).toBeGreaterThanOrEqual(1);
      expect(answering.pings).toBeGreaterThanOrEqual(2);
      expect(answering.isClosed).toBe(false);
      expect((await answering.request({ type: 'state' })).type).toBe('state');
      expect(((await jsonHttp(server.url, 'GET', '/intercode/sessions')).json as Json).active).toBe(1);
      await answering.close();
    } finally {
      await server.stop();
    }
  }, 180_000);
});

describe('graceful shutdown', () => {
  it('SIGTERM: open WS sessions get close 1001, every sandbox is reaped, exit 0', async ({
    intercodeServe,
    needs,
  }) => {
    needs(noBwrap);
    const server = await intercodeServe(['--dataset', 'demo/bash', '--max-sessions', '4']);
    const sockets = [await RawWs.open(server.wsUrl), await RawWs.open(server.wsUrl)];
    for (const ws of sockets) expect((await ws.request({ type: 'reset' }, 120_000)).type).toBe('observation');
    const session = await jsonHttp(server.url, 'POST', '/intercode/sessions', {});
    const id = (session.json as { session_id: string }).session_id;
    expect((await jsonHttp(server.url, 'POST', '/reset', { session_id: id })).status).toBe(200);
    const below = descendants(server.pid);
    const sandboxes = server.sandboxes();
    expect(sandboxes).toBeGreaterThanOrEqual(3);
    const result = await server.stop(60_000);
    const closes = await Promise.all(sockets.map((ws) => ws.closed));
    // Children killed by their parent-death signal may take a moment to go.
    let left = below.filter((entry) => existsSync(`/proc/${entry.pid}`));
    for (let wait = 0; left.length > 0 && wait < 50; wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = left.filter((entry) => existsSync(`/proc/${entry.pid}`));
    }
    console.log(
      `conformance-lifecycle: SIGTERM with ${sandboxes} sandboxes → exit ${String(result.status ?? result.signal)}, ` +
        `WS closes ${closes.map((c) => c.code).join(', ')}, ${left.length} of ${below.length} child processes left`,
    );
    expect(result.status).toBe(0);
    expect(closes.map((c) => c.code)).toEqual([1001, 1001]);
    expect(left.map((entry) => `${entry.pid} ${entry.comm}`)).toEqual([]);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 180_000);
});
