import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { readEpisodeRecords } from '../../../src/harness/episode-record.js';
import type { ServerOptions } from '../../../src/server/app/server-options.js';
import { it } from '../../support/fixtures.js';
import { InProcessServer } from '../../support/server/in-process-server.js';
import { waitFor } from '../../support/wait-for.js';
import { WsTestClient } from '../ws/ws-client.js';

// `POST /intercode/sessions/<id>/fork` on a real server (loopback, demo/sql on SQLite): independent
// branches of an episode as new HTTP sessions, within the capacity, with the turns taken so far.

const served = new InProcessServer();
afterEach(() => served.close());
const serve = (options: ServerOptions = {}) => served.serve(options);
// biome-ignore lint/suspicious/noExplicitAny: replies are JSON, checked field by field by the tests
const call = (method: string, path: string, body?: unknown) => served.call<any>(method, path, body);

async function step(session: string, code: string) {
  return call('POST', '/step', { action: { code }, session_id: session });
}

/** A new session on `dataset`, reset to its first task: its id. */
async function resetSession(dataset: string): Promise<string> {
  const id = (await call('POST', '/intercode/sessions', { dataset })).json.session_id as string;
  expect((await call('POST', '/reset', { session_id: id })).status).toBe(200);
  return id;
}

describe('forking an HTTP session', () => {
  it('gives new sessions on independent copies of the episode, each with the turns so far', async ({
    cache,
  }) => {
    expect(cache).toBeTruthy();
    await serve({ maxSessions: 4 });
    const id = (await call('POST', '/intercode/sessions', { max_turns: 3 })).json.session_id as string;
    const reset = await call('POST', '/reset', { task_id: 'count-ships', session_id: id });
    expect(reset.status).toBe(200);
    await step(id, "UPDATE ships SET name = 'Same'");
    const forked = await call('POST', `/intercode/sessions/${id}/fork`, { count: 2, request_id: 'f1' });
    expect(forked.status).toBe(201);
    expect(forked.json).toMatchObject({ request_id: 'f1', not_copied: [] });
    const [a, b] = forked.json.session_ids as string[];
    expect(new Set([id, a, b]).size).toBe(3);
    expect(forked.json.episode_ids).toHaveLength(2);
    expect(forked.json.episode_ids).not.toContain(reset.json.info.episode_id);
    await step(a!, 'DELETE FROM ships');
    const inA = await step(a!, 'SELECT COUNT(*) FROM ships');
    const inB = await step(b!, "SELECT COUNT(*) FROM ships WHERE name = 'Same'");
    const inOriginal = await step(id, 'SELECT COUNT(*) FROM ships');
    expect(inA.json.observation.output).toMatch(/\b0\b/);
    expect(inB.json.observation.output).not.toMatch(/^\D*0\D*$/);
    expect(inOriginal.json.observation.output).toBe(inB.json.observation.output);
    // Each branch had one turn before the fork: its third turn is the last.
    expect(inA.json).toMatchObject({ done: true, truncated: true });
    expect(inB.json).toMatchObject({ done: false });
    expect((await call('GET', `/state?session_id=${b}`)).json).toMatchObject({
      step_count: 2,
      task_id: 'count-ships',
    });
    expect((await call('GET', '/intercode/sessions')).json).toMatchObject({ active: 3 });
    expect((await call('DELETE', `/intercode/sessions/${id}`)).status).toBe(200);
    expect((await step(b!, 'SELECT 1')).json).toMatchObject({ done: true });
  });

  it('refuses what cannot be forked, in one line each', async ({ cache }) => {
    expect(cache).toBeTruthy();
    await serve({ maxSessions: 3 });
    const id = (await call('POST', '/intercode/sessions')).json.session_id as string;
    expect(await call('POST', `/intercode/sessions/${id}/fork`, { count: 1 })).toMatchObject({
      status: 409,
      json: { code: 'NOT_RESET' },
    });
    await call('POST', '/reset', { task_id: 'count-ships', session_id: id });
    expect(await call('POST', `/intercode/sessions/${id}/fork`, { count: 0 })).toMatchObject({ status: 422 });
    expect(await call('POST', `/intercode/sessions/${id}/fork`, {})).toMatchObject({ status: 422 });
    expect(await call('POST', '/intercode/sessions/nope/fork', { count: 1 })).toMatchObject({
      status: 404,
      json: { code: 'SESSION_NOT_FOUND' },
    });
    // Three sessions at most: the open one and two more.
    expect(await call('POST', `/intercode/sessions/${id}/fork`, { count: 3 })).toMatchObject({
      status: 503,
      json: { code: 'CAPACITY_REACHED', active_sessions: 1, max_sessions: 3 },
    });
    expect((await call('POST', `/intercode/sessions/${id}/fork`, { count: 2 })).status).toBe(201);
    expect((await call('GET', '/intercode/sessions')).json).toMatchObject({ active: 3 });
    const bash = (await call('POST', '/intercode/sessions', { dataset: 'demo/bash' })).json;
    expect(bash).toMatchObject({ code: 'CAPACITY_REACHED' });
  });

  it('forks a Bash episode on bwrap: files and shell state in the new session', async ({ cache }) => {
    expect(cache).toBeTruthy();
    await serve({ maxSessions: 2 });
    const id = await resetSession('demo/bash');
    await step(id, 'cd /demo && BRANCH=1 && echo kept > kept.txt');
    const forked = await call('POST', `/intercode/sessions/${id}/fork`, { count: 1 });
    expect(forked).toMatchObject({ status: 201, json: { not_copied: [] } });
    const [copy] = forked.json.session_ids as string[];
    await step(id, 'rm kept.txt');
    const inCopy = await step(copy!, 'pwd; echo "$BRANCH"; cat kept.txt');
    expect(inCopy.json.observation.output).toBe('/demo\n1\nkept\n');
  });

  it('says FORK_UNSUPPORTED for an environment that cannot copy its episode', async ({ cache }) => {
    expect(cache).toBeTruthy();
    await serve({ maxSessions: 3 });
    const id = await resetSession('demo/ctf');
    const refused = await call('POST', `/intercode/sessions/${id}/fork`, { count: 2 });
    expect(refused).toMatchObject({ status: 409, json: { code: 'FORK_UNSUPPORTED' } });
    expect(refused.json.detail).toMatch(/cannot be forked/);
    expect((await call('GET', '/intercode/sessions')).json).toMatchObject({ active: 1 });
  });

  it('forks a Python session: each branch has its own globals, and notCopied names the shared file system', async ({
    cache,
  }) => {
    expect(cache).toBeTruthy();
    await serve({ maxSessions: 3 });
    const id = (await call('POST', '/intercode/sessions', { dataset: 'demo/python' })).json
      .session_id as string;
    expect((await call('POST', '/reset', { task_id: 'digit-product', session_id: id })).status).toBe(200);
    await step(id, 'x = 1');
    const forked = await call('POST', `/intercode/sessions/${id}/fork`, { count: 2 });
    expect(forked.status).toBe(201);
    expect(forked.json.not_copied).toEqual([expect.stringMatching(/file system/)]);
    const [a, b] = forked.json.session_ids as string[];
    await step(a!, 'x = 2');
    expect((await step(a!, 'x')).json.observation.output).toBe('2');
    expect((await step(b!, 'x')).json.observation.output).toBe('1');
    expect((await call('DELETE', `/intercode/sessions/${id}`)).status).toBe(200);
    expect((await step(b!, 'x')).json.observation.output).toBe('1');
  });

  it('records each branch with --out as an episode of its own, with the turns before the fork', async ({
    cache,
  }) => {
    expect(cache).toBeTruthy();
    const out = mkdtempSync(join(tmpdir(), 'fork-out-'));
    try {
      await serve({ maxSessions: 4, outDir: out });
      const id = (await call('POST', '/intercode/sessions')).json.session_id as string;
      await call('POST', '/reset', { task_id: 'count-ships', session_id: id });
      await step(id, 'SELECT 1');
      const [a, b] = (await call('POST', `/intercode/sessions/${id}/fork`, { count: 2 })).json
        .session_ids as string[];
      await step(a!, 'SELECT COUNT(*) FROM ships');
      await step(a!, 'submit');
      await step(b!, 'submit');
      const file = join(out, 'demo-sql', 'episodes.jsonl');
      await waitFor(() => existsSync(file) && readEpisodeRecords(file).length === 2);
      const records = readEpisodeRecords(file);
      expect(records.map((record) => record.turns.map((turn) => turn.action))).toEqual(
        expect.arrayContaining([
          ['SELECT 1', 'SELECT COUNT(*) FROM ships', 'submit'],
          ['SELECT 1', 'submit'],
        ]),
      );
      expect(records.find((record) => record.turns.length === 3)?.success).toBe(true);
    } finally {
      await served.close();
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('forks a WebSocket session with a fork frame into HTTP sessions', async ({ cache }) => {
    expect(cache).toBeTruthy();
    const running = await serve({ maxSessions: 4 });
    const client = await WsTestClient.connect(`${running.url.replace('http', 'ws')}/ws`);
    try {
      await client.send({ type: 'reset', data: { task_id: 'count-ships' } });
      await client.send({ type: 'step', data: { code: 'DELETE FROM ships' } });
      const refused = await client.send({ type: 'fork', data: { count: 0 }, request_id: 7 });
      expect(refused).toMatchObject({ type: 'error', request_id: 7, data: { code: 'VALIDATION_ERROR' } });
      const forked = await client.send({ type: 'fork', data: { count: 2 }, request_id: 8 });
      expect(forked).toMatchObject({ type: 'forked', request_id: 8, data: { not_copied: [] } });
      const [copy] = forked.data.session_ids as string[];
      await step(copy!, "INSERT INTO ships VALUES (1, 'A', 'tanker', 'Norway', 2000, 1000, NULL)");
      expect((await step(copy!, 'SELECT COUNT(*) FROM ships')).json.observation.output).toMatch(/\b1\b/);
      const own = await client.send({ type: 'step', data: { code: 'SELECT COUNT(*) FROM ships' } });
      expect((own.data as { observation: { output: string } }).observation.output).toMatch(/\b0\b/);
      expect((await call('GET', '/intercode/sessions')).json).toMatchObject({ active: 3 });
    } finally {
      client.socket.terminate();
    }
  });
});
