import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { DEMO_SQL_TASKS } from '../../src/datasets/demo/demo-sql-tasks.js';
import { PROJECT_ROOT } from '../support/project.js';
import { jsonHttp, rawHttp } from '../support/server/raw-http.js';
import type { ServedIntercode } from '../support/server/served-intercode.js';
import { it } from '../support/server/server-fixture.js';
import { expectErrorBody, expectKeys } from '../support/server/wire-shapes.js';

// The discovery side of the wire protocol, from the OpenEnv reference (§1–§3, §7: `openenv validate`)
// and the issue-13 spec: /health, /metadata, /schema, /openapi.json, POST /mcp, our /intercode/
// listings, and the errors of unknown paths and methods. Raw node:http requests only; the server is
// the real `intercode serve` started from the CLI.

type Json = Record<string, unknown>;
let server: ServedIntercode;
const VERSION = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

it.beforeAll(async ({ intercodeServe }) => {
  server = await intercodeServe(['--dataset', 'demo/sql', '--max-sessions', '3', '--idle-timeout', '120']);
}, 120_000);

const get = (path: string) => jsonHttp(server.url, 'GET', path);

describe('GET /health, /metadata (OpenEnv §2.4, §2.6)', () => {
  it('prints the one banner line of the spec when it starts', () => {
    expect(server.banner).toMatch(
      /^intercode serve: listening on http:\/\/127\.0\.0\.1:\d+ \(ws:\/\/127\.0\.0\.1:\d+\/ws\), max 3 sessions$/,
    );
  });

  it('/health answers exactly {"status":"healthy"} as JSON', async () => {
    const reply = await get('/health');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect(reply.json).toEqual({ status: 'healthy' });
  });

  it('/metadata has exactly the six keys of OpenEnv, with our name and the package version', async () => {
    const reply = await get('/metadata');
    expect(reply.status).toBe(200);
    expectKeys(reply.json, [
      'name',
      'description',
      'readme_content',
      'version',
      'author',
      'documentation_url',
    ]);
    const meta = reply.json as Json;
    expect(meta.name).toBe('intercode');
    expect(meta.description).toBeTypeOf('string');
    expect((meta.description as string).length).toBeGreaterThan(0);
    expect(meta.version).toBe(VERSION);
    expect(meta.author).toBeNull();
    for (const key of ['readme_content', 'documentation_url']) {
      if (meta[key] !== null) expect(meta[key]).toBeTypeOf('string');
    }
  });
});

describe('GET /schema (OpenEnv §2.5; verifiers maps model text onto the one required string field)', () => {
  it('has exactly action, observation and state, each a JSON Schema object', async () => {
    const reply = await get('/schema');
    expect(reply.status).toBe(200);
    expectKeys(reply.json, ['action', 'observation', 'state']);
    for (const part of Object.values(reply.json as Json)) expect((part as Json).type).toBe('object');
  });

  it('action: code is the only required field, a string; metadata an object; nothing else allowed', async () => {
    const action = ((await get('/schema')).json as Json).action as Json;
    expect(action.required).toEqual(['code']);
    const properties = action.properties as Record<string, Json>;
    expect(Object.keys(properties).sort()).toEqual(['code', 'metadata']);
    expect(properties.code?.type).toBe('string');
    expect(properties.metadata?.type).toBe('object');
    expect(action.additionalProperties).toBe(false);
    // Not mistaken for an MCP action (verifiers looks for these).
    expect(JSON.stringify(action)).not.toMatch(/tool_name|list_tools|call_tool/);
  });

  it('observation and state list the wire keys', async () => {
    const schema = (await get('/schema')).json as Record<string, Json>;
    const observation = Object.keys(schema.observation?.properties as Json).sort();
    for (const key of ['output', 'exit_code', 'timed_out', 'task_id', 'turn', 'instruction']) {
      expect(observation).toContain(key);
    }
    const state = Object.keys(schema.state?.properties as Json).sort();
    expect(state).toEqual(['dataset', 'done', 'episode_id', 'max_turns', 'step_count', 'task_id']);
  });
});

describe('GET /openapi.json (openenv validate §7)', () => {
  it('is OpenAPI 3.1 with info.version "1.0.0" and the simulation-mode paths with their methods', async () => {
    const reply = await get('/openapi.json');
    expect(reply.status).toBe(200);
    const doc = reply.json as Json;
    expect(doc.openapi).toMatch(/^3\.1/);
    expect((doc.info as Json).version).toBe('1.0.0');
    expect((doc.info as Json).title).toBeTypeOf('string');
    const paths = doc.paths as Record<string, Json>;
    expect(paths['/reset']?.post).toBeDefined();
    expect(paths['/step']?.post).toBeDefined();
    expect(paths['/state']?.get).toBeDefined();
    for (const path of ['/health', '/metadata', '/schema']) expect(paths[path]?.get, path).toBeDefined();
    expect(Object.keys(paths).some((path) => path.startsWith('/intercode/'))).toBe(true);
  });

  it("the /step request body is described with the same action schema as /schema's", async () => {
    const doc = (await get('/openapi.json')).json as Json;
    const action = ((await get('/schema')).json as Json).action as Json;
    const resolve = (node: Json): Json => {
      const ref = node.$ref as string | undefined;
      if (!ref) return node;
      const found = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>((at, part) => (at as Json | undefined)?.[part], doc);
      return resolve(found as Json);
    };
    const step = (doc.paths as Record<string, Record<string, Json>>)['/step']!.post!;
    const body = resolve(
      (((step.requestBody as Json).content as Json)['application/json'] as Json).schema as Json,
    );
    const bodyAction = resolve((body.properties as Record<string, Json>).action!);
    expect(bodyAction.required).toEqual(action.required);
    expect(bodyAction.additionalProperties).toBe(false);
    expect(Object.keys(bodyAction.properties as Json).sort()).toEqual(
      Object.keys(action.properties as Json).sort(),
    );
    expect(body.required).toContain('action');
  });
});

describe('POST /mcp (openenv validate posts {})', () => {
  it('{} → HTTP 200 with a JSON-RPC 2.0 invalid-request error and id null', async () => {
    const reply = await rawHttp(server.url, {
      method: 'POST',
      path: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(reply.status).toBe(200);
    const body = reply.json as Json;
    expect(body.jsonrpc).toBe('2.0');
    expect(body.id).toBeNull();
    expect((body.error as Json).code).toBe(-32600);
    expect((body.error as Json).message).toBeTypeOf('string');
  });
});

describe('openenv validate (reference §7): every criterion at once', () => {
  it('openapi version string (1.x), health healthy, metadata name+description, schema objects, /mcp {} → 200 JSON-RPC, simulation paths', async () => {
    const openapi = (await get('/openapi.json')).json as { info: { version: unknown }; paths: Json };
    expect(openapi.info.version).toMatch(/^1\./);
    const health = await get('/health');
    expect([health.status, (health.json as Json).status]).toEqual([200, 'healthy']);
    const meta = (await get('/metadata')).json as Json;
    expect([typeof meta.name, typeof meta.description]).toEqual(['string', 'string']);
    const schema = (await get('/schema')).json as Json;
    for (const part of ['action', 'observation', 'state']) {
      expect(typeof schema[part] === 'object' && schema[part] !== null, part).toBe(true);
    }
    const mcp = await jsonHttp(server.url, 'POST', '/mcp', {});
    expect([mcp.status, (mcp.json as Json).jsonrpc]).toEqual([200, '2.0']);
    const simulation = ['/reset', '/step', '/state'].filter((path) => path in openapi.paths);
    expect(simulation).toEqual(['/reset', '/step', '/state']);
  });
});

describe('the /intercode/ extensions: listings, capacity, readiness', () => {
  it('GET /intercode/datasets lists demo/sql with its env, task count and cache state', async () => {
    const reply = await get('/intercode/datasets');
    expect(reply.status).toBe(200);
    expectKeys(reply.json, ['datasets']);
    const datasets = (reply.json as { datasets: Json[] }).datasets;
    for (const entry of datasets) expectKeys(entry, ['id', 'env', 'tasks', 'cached', 'description']);
    const sql = datasets.find((entry) => entry.id === 'demo/sql');
    expect(sql).toMatchObject({ env: 'sql', tasks: DEMO_SQL_TASKS.length });
    expect(sql?.cached).toBeTypeOf('boolean');
    expect(datasets.map((entry) => entry.id)).toContain('demo/bash');
  });

  it('GET /intercode/datasets/demo/sql/tasks pages through the tasks in order', async () => {
    const reply = await get('/intercode/datasets/demo/sql/tasks?offset=2&limit=3');
    expect(reply.status).toBe(200);
    expectKeys(reply.json, ['dataset', 'total', 'offset', 'tasks']);
    const page = reply.json as { dataset: string; total: number; offset: number; tasks: Json[] };
    expect(page).toMatchObject({ dataset: 'demo/sql', total: DEMO_SQL_TASKS.length, offset: 2 });
    expect(page.tasks.map((task) => task.index)).toEqual([2, 3, 4]);
    for (const [at, task] of page.tasks.entries()) {
      expectKeys(task, ['task_id', 'index', 'instruction'], ['group']);
      expect(task.task_id).toBe(DEMO_SQL_TASKS[2 + at]!.id);
      expect(task.instruction).toBe(DEMO_SQL_TASKS[2 + at]!.query);
    }
    expect(JSON.stringify(page)).not.toContain(DEMO_SQL_TASKS[2]!.gold);
    const all = (await get('/intercode/datasets/demo/sql/tasks')).json as { tasks: unknown[] };
    expect(all.tasks).toHaveLength(DEMO_SQL_TASKS.length);
  });

  it('an unknown dataset → 404 with our error body', async () => {
    const reply = await get('/intercode/datasets/demo/nope/tasks');
    expect(reply.status).toBe(404);
    expectErrorBody(reply.json, 'NOT_FOUND');
  });

  it('a bad page (negative offset, limit not a number) → 422 with a detail list', async () => {
    for (const query of ['offset=-1', 'limit=abc']) {
      const reply = await get(`/intercode/datasets/demo/sql/tasks?${query}`);
      expect(reply.status, query).toBe(422);
      expect(Array.isArray((reply.json as Json).detail)).toBe(true);
    }
  });

  it('GET /intercode/sessions reports the limits given on the command line', async () => {
    const reply = await get('/intercode/sessions');
    expect(reply.status).toBe(200);
    expectKeys(reply.json, ['active', 'max', 'idle_timeout_s', 'step_timeout_s'], ['sandboxes']);
    expect(reply.json).toMatchObject({ active: 0, max: 3, idle_timeout_s: 120, step_timeout_s: 50 });
  });

  it('GET /intercode/ready → 200 ready with the counts', async () => {
    const reply = await get('/intercode/ready');
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ ready: true, active: 0, max: 3 });
  });
});

describe('unknown paths and wrong methods', () => {
  it('an unknown path → 404 NOT_FOUND, also for names an object dispatch would find', async () => {
    for (const path of ['/nope', '/constructor', '/__proto__', '/intercode/nope', '/ws/x']) {
      const reply = await get(path);
      expect(reply.status, path).toBe(404);
      expectErrorBody(reply.json, 'NOT_FOUND');
    }
  });

  it('a known path with the wrong method → 405 METHOD_NOT_ALLOWED', async () => {
    for (const [method, path] of [
      ['GET', '/reset'],
      ['GET', '/step'],
      ['POST', '/state'],
      ['DELETE', '/health'],
      ['PUT', '/schema'],
    ] as const) {
      const reply = await jsonHttp(server.url, method, path);
      expect(reply.status, `${method} ${path}`).toBe(405);
      expectErrorBody(reply.json, 'METHOD_NOT_ALLOWED');
    }
  });
});
