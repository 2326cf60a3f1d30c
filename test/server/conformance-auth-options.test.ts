import { describe, expect } from 'vitest';
import { expectOneLineError } from '../support/cli-runner.js';
import { jsonHttp, rawHttp } from '../support/server/raw-http.js';
import { RawWs, WsRefused } from '../support/server/raw-ws.js';
import type { ServedIntercode } from '../support/server/served-intercode.js';
import { it } from '../support/server/server-fixture.js';
import { expectErrorBody, expectErrorFrame, expectKeys } from '../support/server/wire-shapes.js';

// Auth (spec "Auth": bearer token on every endpoint but GET /health, the WS upgrade refused with 401),
// the serve options a client sees on the wire (INTERCODE_SERVER_TOKEN, MAX_CONCURRENT_ENVS, the
// `coding` observation profile), and the refusal to bind beyond loopback without a token.

type Json = Record<string, unknown>;
const TOKEN = 's3cret-token';
let guarded: ServedIntercode;

it.beforeAll(async ({ intercodeServe }) => {
  guarded = await intercodeServe(['--host', '127.0.0.1', '--token', TOKEN, '--dataset', 'demo/sql']);
}, 120_000);

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('a server with --token', () => {
  it('GET /health stays open', async () => {
    const reply = await jsonHttp(guarded.url, 'GET', '/health');
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ status: 'healthy' });
  });

  it('every other endpoint → 401 UNAUTHORIZED without the token, with a wrong one, or with another scheme', async () => {
    const endpoints: [string, string, string | undefined][] = [
      ['GET', '/metadata', undefined],
      ['GET', '/schema', undefined],
      ['GET', '/openapi.json', undefined],
      ['GET', '/state', undefined],
      ['POST', '/reset', '{}'],
      ['POST', '/step', '{"action":{"code":"SELECT 1"}}'],
      ['POST', '/mcp', '{}'],
      ['GET', '/intercode/datasets', undefined],
      ['GET', '/intercode/sessions', undefined],
      ['POST', '/intercode/sessions', '{}'],
      ['GET', '/intercode/ready', undefined],
    ];
    const wrong: Record<string, string>[] = [
      {},
      bearer('wrong'),
      bearer(`${TOKEN}x`),
      bearer(TOKEN.slice(0, -1)),
      { authorization: TOKEN },
      { authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` },
    ];
    for (const [method, path, body] of endpoints) {
      for (const headers of wrong) {
        const reply = await rawHttp(guarded.url, {
          method,
          path,
          headers: { 'content-type': 'application/json', ...headers },
          ...(body === undefined ? {} : { body }),
        });
        expect(reply.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
        expectErrorBody(reply.json, 'UNAUTHORIZED');
      }
    }
  });

  it('the right bearer token is let through', async () => {
    const meta = await jsonHttp(guarded.url, 'GET', '/metadata', undefined, bearer(TOKEN));
    expect(meta.status).toBe(200);
    expect((meta.json as Json).name).toBe('intercode');
    const reset = await jsonHttp(guarded.url, 'POST', '/reset', {}, bearer(TOKEN));
    expect(reset.status).toBe(200);
    expect((reset.json as Json).reward).toBeNull();
  });

  it('the WS upgrade is answered with 401 before upgrading, without or with a wrong token', async () => {
    for (const [url, headers] of [
      [guarded.wsUrl, {}],
      [guarded.wsUrl, bearer('wrong')],
      [`${guarded.wsUrl}?token=wrong`, {}],
    ] as const) {
      const refused = await RawWs.open(url, headers).then(
        async (ws) => {
          await ws.close();
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(refused, `${url} ${JSON.stringify(headers)}`).toBeInstanceOf(WsRefused);
      expect((refused as WsRefused).status).toBe(401);
    }
  });

  it('the WS opens with the header or with ?token=, and serves', async () => {
    for (const [url, headers] of [
      [guarded.wsUrl, bearer(TOKEN)],
      [`${guarded.wsUrl}?token=${TOKEN}`, {}],
    ] as const) {
      const ws = await RawWs.open(url, headers);
      try {
        const reply = await ws.request({ type: 'reset' });
        expect(reply.type).toBe('observation');
      } finally {
        await ws.close();
      }
    }
  });
});

describe('options on the wire', () => {
  it('INTERCODE_SERVER_TOKEN guards the server when --token is absent; MAX_CONCURRENT_ENVS caps it', async ({
    intercodeServe,
  }) => {
    const server = await intercodeServe(['--host', '127.0.0.1', '--dataset', 'demo/sql'], {
      INTERCODE_SERVER_TOKEN: 'from-env',
      MAX_CONCURRENT_ENVS: '2',
    });
    try {
      expect((await jsonHttp(server.url, 'GET', '/metadata')).status).toBe(401);
      const sessions = await jsonHttp(
        server.url,
        'GET',
        '/intercode/sessions',
        undefined,
        bearer('from-env'),
      );
      expect(sessions.status).toBe(200);
      expect((sessions.json as Json).max).toBe(2);
      expect(server.banner).toMatch(/max 2 sessions$/);
    } finally {
      await server.stop();
    }
  });

  it('--observation-profile coding: observation is exactly stdout, stderr "", exit_code integer', async ({
    intercodeServe,
  }) => {
    const server = await intercodeServe(['--dataset', 'demo/sql', '--observation-profile', 'coding']);
    try {
      const ws = await RawWs.open(server.wsUrl);
      try {
        for (const frame of [{ type: 'reset' }, { type: 'step', data: { code: 'SELECT 41 + 1' } }]) {
          const reply = await ws.request(frame);
          expect(reply.type).toBe('observation');
          const obs = (reply.data as Json).observation;
          expectKeys(obs, ['stdout', 'stderr', 'exit_code']);
          expect((obs as Json).stderr).toBe('');
          expect(Number.isInteger((obs as Json).exit_code)).toBe(true);
          expect((obs as Json).stdout).toBeTypeOf('string');
        }
        expect(expectErrorFrame(await ws.request({ type: 'nope' }), 'UNKNOWN_TYPE')).toBeDefined();
      } finally {
        await ws.close();
      }
      const http = await jsonHttp(server.url, 'POST', '/step', { action: { code: 'SELECT 41 + 1' } });
      expectKeys((http.json as Json).observation, ['stdout', 'stderr', 'exit_code']);
      expect(((http.json as Json).observation as Json).stdout).toContain('42');
    } finally {
      await server.stop();
    }
  });

  it('binding beyond loopback without a token: exit 1, one line, before listening', ({ cli }) => {
    const result = cli.run(['serve', '--host', '0.0.0.0', '--port', '0'], { timeoutMs: 30_000 });
    expectOneLineError(result, /token/i);
    expect(result.stdout).not.toMatch(/listening/);
  });

  it('a bad option value is one line naming it', ({ cli }) => {
    for (const args of [
      ['--max-sessions', '0'],
      ['--port', 'x'],
      ['--observation-profile', 'fancy'],
      ['--max-message-bytes', '-5'],
    ]) {
      const result = cli.run(['serve', ...args], { timeoutMs: 30_000 });
      expectOneLineError(result, new RegExp(args[0]!));
    }
  });
});
