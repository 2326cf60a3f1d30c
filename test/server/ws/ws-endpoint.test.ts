import { afterEach, describe, expect } from 'vitest';
import type WebSocket from 'ws';
import { DEMO_SQL_TASKS } from '../../../src/datasets/demo/demo-sql-tasks.js';
import type { ServerOptions } from '../../../src/server/app/server-options.js';
import { type RunningServer, startServer } from '../../../src/server/app/start-server.js';
import { it } from '../../support/fixtures.js';
import { waitFor } from '../../support/wait-for.js';
import { WsTestClient } from './ws-client.js';

// The WebSocket endpoint of a real server on a loopback port, on demo/sql (SQLite).

let server: RunningServer | undefined;
const clients: WsTestClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  await server?.close();
  server = undefined;
});

async function serve(options: ServerOptions = {}): Promise<string> {
  server = await startServer({ port: 0, ...options });
  return `${server.url.replace('http', 'ws')}/ws`;
}

async function connect(url: string, options?: WebSocket.ClientOptions): Promise<WsTestClient> {
  const client = await WsTestClient.connect(url, options);
  clients.push(client);
  return client;
}

const first = DEMO_SQL_TASKS[0]!;

describe('WebSocket /ws', () => {
  it('plays a gold episode, one reply per frame, echoing request ids', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const client = await connect(await serve());
    const reset = await client.send({ type: 'reset', data: { index: 0 }, request_id: 'r1' });
    expect(reset).toMatchObject({
      type: 'observation',
      request_id: 'r1',
      data: { reward: null, done: false, info: { task_id: first.id } },
    });
    const query = await client.send({ type: 'step', data: { code: String(first.gold) }, request_id: 2 });
    expect(query).toMatchObject({
      type: 'observation',
      request_id: 2,
      data: { reward: 0, done: false, observation: { turn: 1 } },
    });
    const submit = await client.send({ type: 'step', data: { code: 'submit' } });
    expect(submit.data).toMatchObject({ reward: 1, done: true, terminated: true, truncated: false });
    expect('request_id' in submit).toBe(false);
    expect(await client.send({ type: 'state' })).toEqual({
      type: 'state',
      data: {
        episode_id: expect.any(String),
        step_count: 2,
        dataset: 'demo/sql',
        task_id: first.id,
        done: true,
        max_turns: 10,
      },
    });
    expect((await client.send({ type: 'step', data: { code: 'SELECT 1' } })).data).toMatchObject({
      code: 'EPISODE_DONE',
    });
    client.socket.send(JSON.stringify({ type: 'close' }));
    expect((await client.closed).code).toBe(1000);
    await waitFor(() => server!.sessions.sessions.active === 0, 10_000);
  });

  it('answers bad frames with error frames and keeps the connection open', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const client = await connect(await serve());
    expect((await client.send('{nope')).data).toMatchObject({ code: 'INVALID_JSON' });
    expect(await client.send({ type: 'dance', request_id: 'x' })).toMatchObject({
      type: 'error',
      request_id: 'x',
      data: { code: 'UNKNOWN_TYPE', message: expect.stringContaining('dance') },
    });
    expect((await client.send({ type: 'state', data: {} })).data).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ type: 'extra_forbidden', loc: ['data'] }],
    });
    expect((await client.send({ type: 'step', data: { code: 'SELECT 1' } })).data).toMatchObject({
      code: 'NOT_RESET',
    });
    expect((await client.send({ type: 'reset', data: { seed: 'one' } })).data).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ loc: ['data', 'seed'] }],
    });
    await client.send({ type: 'reset' });
    expect((await client.send({ type: 'step', data: { cmd: 'ls' } })).data).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: expect.arrayContaining([expect.objectContaining({ loc: ['code'], type: 'missing' })]),
    });
    expect((await client.send({ type: 'step' })).data).toMatchObject({ code: 'VALIDATION_ERROR' });
    const deep = `{"type":"reset","data":${'{"a":'.repeat(70)}1${'}'.repeat(70)}}`;
    expect((await client.send(deep)).data).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(
      await client.send({ type: 'mcp', data: { jsonrpc: '2.0', id: 9, method: 'no/such-method' } }),
    ).toMatchObject({
      type: 'mcp',
      data: { jsonrpc: '2.0', id: 9, error: { code: -32601 } },
    });
    expect((await client.send({ type: 'state' })).type).toBe('state');
  });

  it('answers a connection over capacity with CAPACITY_REACHED, then closes it with 1013', async ({
    cache,
  }) => {
    expect(cache).toBeTruthy();
    const url = await serve({ maxSessions: 1 });
    const held = await connect(url);
    const refused = await connect(url);
    expect(await refused.next()).toEqual({
      type: 'error',
      data: { message: expect.any(String), code: 'CAPACITY_REACHED', active_sessions: 1, max_sessions: 1 },
    });
    expect((await refused.closed).code).toBe(1013);
    expect((await held.send({ type: 'reset' })).type).toBe('observation');
    held.close();
    await waitFor(() => server!.sessions.sessions.active === 0, 10_000);
    const next = await connect(url);
    expect((await next.send({ type: 'reset' })).type).toBe('observation');
  });

  it('closes a frame over the size limit with 1009', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const client = await connect(await serve({ maxMessageBytes: 4096 }));
    client.socket.send(JSON.stringify({ type: 'step', data: { code: 'x'.repeat(8192) } }));
    expect((await client.closed).code).toBe(1009);
  });

  it('checks the token on the upgrade: 401 without it, the header or ?token= with it', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const url = await serve({ token: 'tok', host: '127.0.0.1' });
    await expect(connect(url)).rejects.toThrow('HTTP 401');
    await expect(connect(`${url}?token=bad`)).rejects.toThrow('HTTP 401');
    expect((await (await connect(`${url}?token=tok`)).send({ type: 'state' })).type).toBe('state');
    const byHeader = await connect(url, { headers: { authorization: 'Bearer tok' } });
    expect((await byHeader.send({ type: 'state' })).type).toBe('state');
  });

  it('closes an idle session with 1000 "idle timeout"', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const client = await connect(await serve({ idleTimeoutMs: 300 }));
    await client.send({ type: 'reset' });
    expect(await client.closed).toEqual({ code: 1000, reason: 'idle timeout' });
    expect(server!.sessions.sessions.active).toBe(0);
  });

  it('drops a peer that misses two pongs', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const client = await connect(await serve({ pingIntervalMs: 100 }), { autoPong: false });
    expect((await client.closed).code).toBe(1006);
    await waitFor(() => server!.sessions.sessions.active === 0, 10_000);
  });

  it('closes every session with 1001 at shutdown', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const url = await serve();
    const [a, b] = [await connect(url), await connect(url)];
    await a.send({ type: 'reset' });
    const running = server!;
    server = undefined;
    await running.close();
    expect((await a.closed).code).toBe(1001);
    expect((await b.closed).code).toBe(1001);
    expect(running.sessions.sessions.active).toBe(0);
  });
});
