import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect } from 'vitest';
import { DEMO_SQL_TASKS } from '../../../src/datasets/demo/demo-sql-tasks.js';
import { NO_MCP_TOOLS } from '../../../src/server/app/mcp-gateway.js';
import type { ServerOptions } from '../../../src/server/app/server-options.js';
import { startServer } from '../../../src/server/app/start-server.js';
import { it } from '../../support/fixtures.js';
import { InProcessServer } from '../../support/server/in-process-server.js';

// The HTTP endpoints of a real server on a loopback port, on demo/sql (SQLite).

const served = new InProcessServer();
afterEach(() => served.close());
const serve = (options: ServerOptions = {}) => served.serve(options);
const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  served.call(method, path, body, headers);

const first = DEMO_SQL_TASKS[0]!;

describe('HTTP endpoints', () => {
  it('answers health, metadata, schema and the OpenAPI document', async ({ cache }) => {
    expect(cache).toBeTruthy();
    await serve();
    expect(await call('GET', '/health')).toEqual({ status: 200, json: { status: 'healthy' } });
    const metadata = await call('GET', '/metadata');
    expect(Object.keys(metadata.json).sort()).toEqual(
      ['author', 'description', 'documentation_url', 'name', 'readme_content', 'version'].sort(),
    );
    expect(metadata.json).toMatchObject({
      name: 'intercode',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
    const schema = await call('GET', '/schema');
    expect(schema.json.action).toMatchObject({
      type: 'object',
      required: ['code'],
      additionalProperties: false,
    });
    expect(schema.json.state).toMatchObject({ type: 'object' });
    expect(Object.keys((schema.json.observation as { properties: object }).properties)).toEqual([
      'output',
      'exit_code',
      'timed_out',
      'task_id',
      'turn',
      'instruction',
    ]);
    const openapi = await call('GET', '/openapi.json');
    expect(openapi.json).toMatchObject({ openapi: '3.1.0', info: { version: '1.0.0' } });
    expect(Object.keys(openapi.json.paths as object)).toEqual(
      expect.arrayContaining(['/reset', '/step', '/state', '/mcp']),
    );
  });

  it('resets and steps statelessly: each request on a fresh env, closed after', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const running = await serve();
    const reset = await call('POST', '/reset', { seed: 1, extra: true });
    expect(reset.status).toBe(200);
    expect(reset.json).toMatchObject({
      reward: null,
      done: false,
      info: { index: 1, ignored_keys: ['extra'] },
    });
    const step = await call('POST', '/step', { action: { code: 'submit' }, task_id: first.id });
    expect(step.status).toBe(200);
    expect(step.json).toMatchObject({
      done: true,
      terminated: true,
      observation: { task_id: first.id, turn: 1 },
    });
    expect(running.sessions.sessions.active).toBe(0);
    expect((await call('POST', '/reset')).status).toBe(200);
    expect((await call('GET', '/state')).json).toMatchObject({ episode_id: null, step_count: 0 });
  });

  it('plays an episode on an HTTP session, echoing request ids', async ({ cache }) => {
    expect(cache).toBeTruthy();
    await serve();
    const created = await call('POST', '/intercode/sessions', { max_turns: 5 });
    expect(created.status).toBe(201);
    const id = created.json.session_id as string;
    const header = { 'x-session-id': id };
    const reset = await call('POST', '/reset', { index: 0, request_id: 'a1' }, header);
    expect(reset.json).toMatchObject({ request_id: 'a1', info: { task_id: first.id } });
    const query = await call(
      'POST',
      '/step',
      { action: { code: String(first.gold) }, session_id: id },
      { 'x-request-id': 'a2' },
    );
    expect(query.json).toMatchObject({ reward: 0, done: false, request_id: 'a2', observation: { turn: 1 } });
    const submit = await call('POST', '/step', { action: { code: 'submit' } }, header);
    expect(submit.json).toMatchObject({ reward: 1, done: true });
    expect((await call('GET', `/state?session_id=${id}`)).json).toMatchObject({
      step_count: 2,
      done: true,
      max_turns: 5,
    });
    const again = await call('POST', '/step', { action: { code: 'SELECT 1' } }, header);
    expect(again).toMatchObject({ status: 409, json: { code: 'EPISODE_DONE' } });
    expect((await call('GET', '/intercode/sessions')).json).toMatchObject({
      active: 1,
      idle_timeout_s: 600,
      step_timeout_s: 50,
    });
    expect(await call('DELETE', `/intercode/sessions/${id}`)).toEqual({
      status: 200,
      json: { session_id: id, closed: true },
    });
    expect(await call('POST', '/reset', {}, header)).toMatchObject({
      status: 404,
      json: { code: 'SESSION_NOT_FOUND' },
    });
    expect((await call('DELETE', `/intercode/sessions/${id}`)).status).toBe(404);
  });

  it('answers step before reset on a session with NOT_RESET', async ({ cache }) => {
    expect(cache).toBeTruthy();
    await serve();
    const id = (await call('POST', '/intercode/sessions')).json.session_id as string;
    const step = await call('POST', '/step', { action: { code: 'SELECT 1' } }, { 'x-session-id': id });
    expect(step).toMatchObject({ status: 409, json: { code: 'NOT_RESET' } });
  });

  it('answers bad requests with the spec shapes', async ({ cache }) => {
    expect(cache).toBeTruthy();
    await serve({ maxMessageBytes: 2048 });
    expect(await call('POST', '/reset', { seed: -1 })).toMatchObject({
      status: 422,
      json: {
        detail: [{ loc: ['body', 'seed'], input: -1, type: expect.any(String), msg: expect.any(String) }],
      },
    });
    expect(await call('POST', '/step', { action: { code: 1 } })).toMatchObject({
      status: 422,
      json: { detail: [{ loc: ['code'], input: 1 }] },
    });
    expect(await call('POST', '/step', {})).toMatchObject({
      status: 422,
      json: { detail: [{ loc: ['body', 'action'], type: 'missing' }] },
    });
    expect(await call('POST', '/step', { action: { code: 'x' }, timeout_s: 0 })).toMatchObject({
      status: 422,
      json: { detail: [{ loc: ['body', 'timeout_s'] }] },
    });
    expect(await call('POST', '/reset', '{"seed": 1')).toMatchObject({
      status: 400,
      json: { code: 'INVALID_JSON' },
    });
    expect(await call('POST', '/reset', { junk: 'x'.repeat(4096) })).toMatchObject({
      status: 413,
      json: { code: 'PAYLOAD_TOO_LARGE' },
    });
    const deep = `${'['.repeat(65)}${']'.repeat(65)}`;
    expect(await call('POST', '/reset', deep)).toMatchObject({
      status: 422,
      json: { detail: [{ loc: ['body'] }] },
    });
    expect(await call('POST', '/reset', { dataset: 'demo/bash', engine: 'sqlite' })).toMatchObject({
      status: 422,
      json: { detail: [{ msg: '--engine: it applies to the sql environment only, not bash' }] },
    });
    expect(await call('GET', '/nowhere')).toMatchObject({ status: 404, json: { code: 'NOT_FOUND' } });
    expect(await call('PUT', '/reset')).toMatchObject({ status: 405, json: { code: 'METHOD_NOT_ALLOWED' } });
    expect(await call('GET', '/intercode/datasets/no/such/tasks')).toMatchObject({ status: 404 });
    expect(await call('GET', '/intercode/datasets/demo/sql/tasks?limit=0')).toMatchObject({ status: 422 });
  });

  it('refuses sessions past capacity with 503 and the counts; ready says so', async ({ cache }) => {
    expect(cache).toBeTruthy();
    await serve({ maxSessions: 1 });
    expect((await call('GET', '/intercode/ready')).json).toEqual({ ready: true, active: 0, max: 1 });
    expect((await call('POST', '/intercode/sessions')).status).toBe(201);
    expect(await call('POST', '/intercode/sessions')).toMatchObject({
      status: 503,
      json: { code: 'CAPACITY_REACHED', active_sessions: 1, max_sessions: 1 },
    });
    expect(await call('POST', '/reset')).toMatchObject({ status: 503 });
    expect(await call('GET', '/intercode/ready')).toMatchObject({ status: 503, json: { ready: false } });
  });

  it('lists datasets and tasks without their gold', async ({ cache }) => {
    expect(cache).toBeTruthy();
    await serve();
    const { json } = await call('GET', '/intercode/datasets');
    const sql = (json.datasets as Record<string, unknown>[]).find((entry) => entry.id === 'demo/sql');
    expect(sql).toMatchObject({
      env: 'sql',
      tasks: DEMO_SQL_TASKS.length,
      cached: true,
      description: expect.any(String),
    });
    const page = await call('GET', '/intercode/datasets/demo/sql/tasks?offset=2&limit=3');
    expect(page.json).toMatchObject({ dataset: 'demo/sql', total: DEMO_SQL_TASKS.length, offset: 2 });
    expect((page.json.tasks as { index: number }[]).map((task) => task.index)).toEqual([2, 3, 4]);
    expect(JSON.stringify(page.json)).not.toContain(String(DEMO_SQL_TASKS[2]!.gold));
  });

  it('answers POST /mcp with JSON-RPC errors with the gateway without tools', async ({ cache }) => {
    expect(cache).toBeTruthy();
    await serve({ mcp: NO_MCP_TOOLS });
    expect(await call('POST', '/mcp', {})).toMatchObject({
      status: 200,
      json: { jsonrpc: '2.0', id: null, error: { code: -32600 } },
    });
    expect(await call('POST', '/mcp', { jsonrpc: '2.0', id: 4, method: 'tools/list' })).toMatchObject({
      status: 200,
      json: { jsonrpc: '2.0', id: 4, error: { code: -32601 } },
    });
  });

  it('needs the bearer token everywhere but /health when it has one', async ({ cache }) => {
    expect(cache).toBeTruthy();
    await serve({ token: 's3cret', host: '127.0.0.1' });
    expect((await call('GET', '/health')).status).toBe(200);
    expect(await call('GET', '/metadata')).toMatchObject({ status: 401, json: { code: 'UNAUTHORIZED' } });
    expect((await call('GET', '/metadata', undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await call('GET', '/metadata', undefined, { authorization: 'Bearer s3cret' })).status).toBe(200);
  });

  it('keeps connections alive between requests', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const running = await serve();
    const ports = new Set<number>();
    const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 3; i += 1) {
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(`${running.url}/health`, { agent }, (response) => {
          ports.add(response.socket.localPort ?? 0);
          response.resume();
          response.on('end', resolve);
        });
        req.on('error', reject);
        req.end();
      });
    }
    agent.destroy();
    expect(ports.size).toBe(1);
  });

  it('refuses settings before listening', async ({ cache }) => {
    expect(cache).toBeTruthy();
    await expect(startServer({ port: 0, host: '0.0.0.0' })).rejects.toThrow(/give a token/);
    await expect(startServer({ port: 0, dataset: 'demo/bash', engine: 'mysql' })).rejects.toThrow(
      '--engine: it applies to the sql environment only, not bash',
    );
    await expect(startServer({ port: 0, maxSessions: 0 })).rejects.toThrow(/--max-sessions/);
    await expect(startServer({ port: 0, dataset: 'nope/none' })).rejects.toThrow(/unknown dataset/);
  });
});
