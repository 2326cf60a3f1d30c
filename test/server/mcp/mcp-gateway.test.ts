import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect } from 'vitest';
import { DEMO_SQL_TASKS } from '../../../src/datasets/demo/demo-sql-tasks.js';
import { type RunningServer, startServer } from '../../../src/server/app/start-server.js';
import { TASK_RESOURCE_URI } from '../../../src/server/mcp/create-mcp-server.js';
import { McpToolGateway } from '../../../src/server/mcp/mcp-tool-gateway.js';
import type { SessionHost } from '../../../src/server/session/session-host.js';
import { it } from '../../support/fixtures.js';
import { WsTestClient } from '../ws/ws-client.js';
import { resourceJson, structured } from './stdio-client.js';

// The server's /mcp on a real loopback socket over real SQLite sessions: the SDK's Streamable HTTP
// client, OpenEnv's raw JSON-RPC, and the WebSocket frame path.
// Each test takes the private cache and the mirror fixtures, so nothing reads a developer's cache.

let host: SessionHost | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  host = undefined;
  server = undefined;
});

const first = DEMO_SQL_TASKS[0]!;

/** The real server's `/mcp`, with a gateway the test can look into. */
async function start(): Promise<{ url: string; gateway: McpToolGateway }> {
  const gateway = new McpToolGateway({ version: '0.0.0-test' });
  server = await startServer({ port: 0, dataset: 'demo/sql', mcp: gateway });
  host = server.sessions;
  return { url: `${server.url}/mcp`, gateway };
}

/** The real server (`startServer`) with the MCP tools as its gateway. */
async function serve(): Promise<RunningServer> {
  server = await startServer({
    port: 0,
    dataset: 'demo/sql',
    mcp: new McpToolGateway({ version: '0.0.0-test' }),
  });
  return server;
}

function activeSessions(): number {
  return server!.sessions.sessions.active;
}

async function rpc(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('/mcp', () => {
  it('serves an MCP client over Streamable HTTP: one server session per MCP session', async ({
    mirror,
    cache,
  }) => {
    void mirror;
    void cache;
    const { url, gateway } = await start();
    const client = new Client({ name: 'http-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    try {
      expect(transport.sessionId).toBeDefined();
      expect(host!.sessions.get(transport.sessionId!)).toBeDefined();
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['execute', 'reset', 'submit']);
      const task = structured(await client.callTool({ name: 'reset', arguments: { index: 0 } }));
      expect(task).toMatchObject({ dataset: 'demo/sql', task_id: first.id, index: 0, max_turns: 10 });
      const resource = await client.readResource({ uri: TASK_RESOURCE_URI });
      expect(resourceJson(resource.contents)).toMatchObject({ task_id: first.id, instruction: first.query });
      const step = structured(
        await client.callTool({ name: 'execute', arguments: { code: String(first.gold) } }),
      );
      expect(step).toMatchObject({ turn: 1, done: false });
      const end = structured(await client.callTool({ name: 'submit', arguments: {} }));
      expect(end).toMatchObject({ reward: 1, done: true, turn: 2 });
      const over = await client.callTool({ name: 'execute', arguments: { code: 'SELECT 1' } });
      expect(over.isError).toBe(true);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
    expect(host!.sessions.active).toBe(0);
    expect(gateway.streamableSessions).toBe(0);
  });

  it("answers OpenEnv's JSON-RPC: {} → 200 -32600, session create, tools/list, tools/call, close", async ({
    mirror,
    cache,
  }) => {
    void mirror;
    void cache;
    const url = `${(await serve()).url}/mcp`;
    const empty = await rpc(url, {});
    expect(empty.status).toBe(200);
    expect(empty.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });

    const listed = await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    expect(listed.status).toBe(200);
    const tools = (listed.json.result as { tools: { name: string }[] }).tools;
    expect(tools.map((tool) => tool.name).sort()).toEqual(['execute', 'reset', 'submit']);

    const created = await rpc(url, { jsonrpc: '2.0', id: 2, method: 'openenv/session/create', params: {} });
    const sessionId = (created.json.result as { session_id: string }).session_id;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(activeSessions()).toBe(1);

    const call = (id: number, name: string, args: Record<string, unknown>) =>
      rpc(url, {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { session_id: sessionId, name, arguments: args },
      });
    // The first execute of a session never reset starts task 0.
    const step = await call(3, 'execute', { code: String(first.gold) });
    expect(step.json).toMatchObject({ jsonrpc: '2.0', id: 3 });
    expect((step.json.result as { structuredContent: unknown }).structuredContent).toMatchObject({
      turn: 1,
      done: false,
    });
    const end = await call(4, 'submit', {});
    expect((end.json.result as { structuredContent: unknown }).structuredContent).toMatchObject({
      reward: 1,
      done: true,
    });
    const unknownTool = await call(5, 'step', {});
    expect(unknownTool.status).toBe(200);
    expect(JSON.stringify(unknownTool.json)).toMatch(/step/);

    const noSession = await rpc(url, {
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/call',
      params: { name: 'execute', arguments: { code: 'SELECT 1' } },
    });
    expect(noSession.json).toMatchObject({ id: 6, error: { code: -32602 } });
    const unknownMethod = await rpc(url, {
      jsonrpc: '2.0',
      id: 7,
      method: 'no/such',
      params: { session_id: sessionId },
    });
    expect(unknownMethod.json).toMatchObject({ id: 7, error: { code: -32601 } });

    const closed = await rpc(url, {
      jsonrpc: '2.0',
      id: 8,
      method: 'openenv/session/close',
      params: { session_id: sessionId },
    });
    expect(closed.json).toMatchObject({ id: 8, result: { session_id: sessionId, closed: true } });
    expect(activeSessions()).toBe(0);
    const gone = await call(9, 'execute', { code: 'SELECT 1' });
    expect(gone.json).toMatchObject({ id: 9, error: { code: -32602 } });
  });

  it('answers WebSocket mcp frames on the connection’s session, beside its reset and step frames', async ({
    mirror,
    cache,
  }) => {
    void mirror;
    void cache;
    const running = await serve();
    const ws = await WsTestClient.connect(`${running.url.replace(/^http/, 'ws')}/ws`);
    try {
      const reset = await ws.send({
        type: 'mcp',
        data: {
          jsonrpc: '2.0',
          id: 'a',
          method: 'tools/call',
          params: { name: 'reset', arguments: { task_id: first.id } },
        },
        request_id: 7,
      });
      expect(reset).toMatchObject({
        type: 'mcp',
        request_id: 7,
        data: { jsonrpc: '2.0', id: 'a', result: { structuredContent: { task_id: first.id } } },
      });
      // The same episode through the OpenEnv frames: the MCP reset started it.
      const step = await ws.send({ type: 'step', data: { code: String(first.gold) } });
      expect(step).toMatchObject({
        type: 'observation',
        data: { done: false, observation: { task_id: first.id, turn: 1 } },
      });
      const submitted = await ws.send({
        type: 'mcp',
        data: { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'submit', arguments: {} } },
      });
      expect(submitted).toMatchObject({
        data: { id: 'b', result: { structuredContent: { reward: 1, turn: 2 } } },
      });
      const created = await ws.send({
        type: 'mcp',
        data: { jsonrpc: '2.0', id: 'c', method: 'openenv/session/create' },
      });
      expect(created.data).toMatchObject({ id: 'c', result: { session_id: expect.any(String) } });
      const bad = await ws.send({ type: 'mcp', data: [1, 2] });
      expect(bad).toMatchObject({ type: 'mcp', data: { jsonrpc: '2.0', id: null, error: { code: -32600 } } });
    } finally {
      ws.close();
      await ws.closed;
    }
  });
});
