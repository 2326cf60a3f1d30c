import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, vi } from 'vitest';
import { DEMO_BASH_TASKS } from '../../src/datasets/demo/demo-bash-tasks.js';
import { DEMO_SQL_TASKS } from '../../src/datasets/demo/demo-sql-tasks.js';
import { readEpisodeRecords } from '../../src/harness/episode-record.js';
import { readRunSummary } from '../../src/harness/run-files/read-run-summary.js';
import type { ServerOptions } from '../../src/server/app/server-options.js';
import { type RunningServer, startServer } from '../../src/server/app/start-server.js';
import { expectOneLineError } from '../support/cli-runner.js';
import { bwrapMissing } from '../support/missing-components.js';
import { it } from '../support/server/server-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { WsTestClient } from './ws/ws-client.js';

// `intercode serve --out DIR`: every episode played through the server (WS, HTTP, /mcp) is written to
// a run directory per dataset and configuration, as `intercode run` writes them.

let server: RunningServer | undefined;
const clients: WsTestClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  await server?.close();
  server = undefined;
});

async function serve(options: ServerOptions): Promise<RunningServer> {
  server = await startServer({ port: 0, ...options });
  return server;
}

async function connect(running: RunningServer): Promise<WsTestClient> {
  const client = await WsTestClient.connect(`${running.url.replace('http', 'ws')}/ws`);
  clients.push(client);
  return client;
}

/** Steps on `client`, returning the wire's reward (and failing on an error frame). */
async function step(client: WsTestClient, code: string): Promise<Record<string, unknown>> {
  const reply = await client.send({ type: 'step', data: { code } });
  expect(reply.type, JSON.stringify(reply)).toBe('observation');
  return reply.data;
}

function records(dir: string) {
  const path = join(dir, 'episodes.jsonl');
  return existsSync(path) ? readEpisodeRecords(path) : [];
}

const sql = DEMO_SQL_TASKS[0]!;
const bash = DEMO_BASH_TASKS[0]!;

describe('intercode serve --out', () => {
  it('records WS gold episodes of demo/sql and demo/bash with the rewards the client was sent', async ({
    tempDir,
    mirror,
    cache,
    needs,
  }) => {
    void mirror;
    void cache;
    needs(await bwrapMissing());
    const out = tempDir('serve-out');
    const running = await serve({ outDir: out });
    const client = await connect(running);
    const wire: Record<string, unknown[]> = { sql: [], bash: [] };
    expect((await client.send({ type: 'reset', data: { index: 0 } })).type).toBe('observation');
    wire.sql!.push((await step(client, String(sql.gold))).reward, (await step(client, 'submit')).reward);
    const reset = await client.send({ type: 'reset', data: { dataset: 'demo/bash', index: 0 } });
    expect(reset.data).toMatchObject({ info: { task_id: bash.id } });
    wire.bash!.push((await step(client, bash.gold)).reward);
    const end = await step(client, 'submit');
    wire.bash!.push(end.reward);
    expect(end).toMatchObject({ reward: 1, done: true, terminated: true });

    const [sqlRecord] = records(join(out, 'demo-sql'));
    expect(sqlRecord).toMatchObject({
      taskId: sql.id,
      index: 0,
      dataset: 'demo/sql',
      query: sql.query,
      gold: sql.gold,
      reward: 1,
      maxReward: 1,
      success: true,
      turnsTaken: 2,
      terminated: true,
      truncated: false,
    });
    expect(sqlRecord!.turns.map((turn) => turn.reward)).toEqual(wire.sql);
    expect(sqlRecord!.turns.map((turn) => turn.action)).toEqual([String(sql.gold), 'submit']);
    const [bashRecord] = records(join(out, 'demo-bash'));
    expect(bashRecord).toMatchObject({
      taskId: bash.id,
      dataset: 'demo/bash',
      gold: bash.gold,
      success: true,
    });
    expect(bashRecord!.turns.map((turn) => turn.reward)).toEqual(wire.bash);
    expect(bashRecord!.turns[0]).toMatchObject({ action: bash.gold, admissible: true });
    // The gold is on the server's disk, never on the wire.
    expect(JSON.stringify(reset)).not.toContain(bash.gold);

    // The summary follows the episodes within a second (at most one rewrite a second).
    await vi.waitFor(
      () =>
        expect(readRunSummary(join(out, 'demo-sql', 'summary.json'))).toMatchObject({
          dataset: 'demo/sql',
          agent: 'serve:ws',
          n: 1,
          solved: 1,
          complete: false,
        }),
      { timeout: 5_000, interval: 100 },
    );
    await running.close();
    server = undefined;
    for (const dir of ['demo-sql', 'demo-bash']) {
      expect(readRunSummary(join(out, dir, 'summary.json'))).toMatchObject({ n: 1, complete: true });
    }
  });

  it('records episodes cut by a reset, a DELETE, a disconnect as truncated, each once', async ({
    tempDir,
    mirror,
    cache,
  }) => {
    void mirror;
    void cache;
    const out = tempDir('serve-cut');
    const running = await serve({ outDir: out });
    const dir = join(out, 'demo-sql');
    const client = await connect(running);
    await client.send({ type: 'reset', data: { index: 1 } });
    await step(client, 'SELECT 1');
    // A reset before done cuts the episode.
    await client.send({ type: 'reset', data: { index: 2 } });
    expect(records(dir)).toMatchObject([
      { index: 1, turnsTaken: 1, terminated: false, truncated: true, success: false },
    ]);
    // A reset with no step between records nothing (no episode was played).
    await client.send({ type: 'reset', data: { index: 3 } });
    await step(client, 'SELECT 2');
    await step(client, 'SELECT 3');
    expect(records(dir)).toHaveLength(1);
    // A disconnect cuts it.
    client.close();
    await waitFor(() => records(dir).length === 2, 20_000, 'the cut episode');
    expect(records(dir)[1]).toMatchObject({ index: 3, turnsTaken: 2, truncated: true });
    expect(records(dir)[1]!.turns.map((turn) => turn.action)).toEqual(['SELECT 2', 'SELECT 3']);

    // An HTTP session closed with DELETE.
    const opened = await fetch(`${running.url}/intercode/sessions`, { method: 'POST', body: '{}' });
    const { session_id: id } = (await opened.json()) as { session_id: string };
    const post = (path: string, body: unknown) =>
      fetch(`${running.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...(body as object), session_id: id }),
      });
    expect((await post('/reset', { index: 4 })).status).toBe(200);
    expect((await post('/step', { action: { code: 'SELECT 4' } })).status).toBe(200);
    expect((await fetch(`${running.url}/intercode/sessions/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect(records(dir)[2]).toMatchObject({ index: 4, turnsTaken: 1, truncated: true });
    // The turn limit truncates with truncatedBy.
    const limited = await connect(running);
    await limited.send({ type: 'reset', data: { index: 0, max_turns: 1 } });
    expect(await step(limited, 'SELECT 5')).toMatchObject({ done: true, truncated: true });
    await running.close();
    server = undefined;
    expect(records(dir)).toHaveLength(3);
    const [limitedRecord] = records(join(out, 'demo-sql-1turns'));
    expect(limitedRecord).toMatchObject({ truncated: true, truncatedBy: 'max-turns', turnsTaken: 1 });
    expect(readRunSummary(join(dir, 'summary.json'))).toMatchObject({
      agent: 'serve:http+ws',
      n: 3,
      solved: 0,
      complete: true,
    });
    expect(readRunSummary(join(out, 'demo-sql-1turns', 'summary.json'))).toMatchObject({ maxTurns: 1 });
  });

  it('records /mcp episodes (Streamable HTTP) as agent serve:mcp', async ({ tempDir, mirror, cache }) => {
    void mirror;
    void cache;
    const out = tempDir('serve-mcp');
    const running = await serve({ outDir: out });
    const client = new Client({ name: 'record-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`));
    await client.connect(transport);
    try {
      await client.callTool({ name: 'reset', arguments: { index: 0 } });
      await client.callTool({ name: 'execute', arguments: { code: String(sql.gold) } });
      const end = await client.callTool({ name: 'submit', arguments: {} });
      expect(end.structuredContent).toMatchObject({ reward: 1, done: true });
    } finally {
      await transport.terminateSession();
      await client.close();
    }
    expect(records(join(out, 'demo-sql'))).toMatchObject([
      { taskId: sql.id, reward: 1, success: true, turnsTaken: 2 },
    ]);
    await running.close();
    server = undefined;
    expect(readRunSummary(join(out, 'demo-sql', 'summary.json'))).toMatchObject({
      agent: 'serve:mcp',
      complete: true,
    });
  });

  it('refuses a directory that holds episodes unless appending, then counts the old ones', async ({
    tempDir,
    mirror,
    cache,
  }) => {
    void mirror;
    void cache;
    const out = tempDir('serve-append');
    const first = await serve({ outDir: out });
    const client = await connect(first);
    await client.send({ type: 'reset', data: { index: 0 } });
    await step(client, String(sql.gold));
    await step(client, 'submit');
    await first.close();
    server = undefined;
    await expect(startServer({ port: 0, outDir: out })).rejects.toThrow(
      /^--out: .*demo-sql already holds episodes: pass --append/,
    );
    await expect(startServer({ port: 0, append: true })).rejects.toThrow('--append needs --out');
    const again = await serve({ outDir: out, append: true });
    const second = await connect(again);
    await second.send({ type: 'reset', data: { index: 1 } });
    await step(second, 'SELECT 1');
    await step(second, 'submit');
    await again.close();
    server = undefined;
    expect(records(join(out, 'demo-sql')).map((record) => record.index)).toEqual([0, 1]);
    expect(readRunSummary(join(out, 'demo-sql', 'summary.json'))).toMatchObject({
      n: 2,
      solved: 1,
      complete: true,
    });
  });

  it('./bin/intercode serve --out: SIGTERM completes the summaries and cuts the episode in flight; report reads the directory; a used directory is refused', async ({
    tempDir,
    intercodeServe,
    cli,
  }) => {
    const out = tempDir('serve-cli');
    const served = await intercodeServe(['--out', out]);
    const client = await WsTestClient.connect(served.wsUrl);
    clients.push(client);
    await client.send({ type: 'reset', data: { index: 0 } });
    await step(client, String(sql.gold));
    await step(client, 'submit');
    await client.send({ type: 'reset', data: { index: 1 } });
    await step(client, 'SELECT 1');
    const dir = join(out, 'demo-sql');
    // The summary follows the episodes within a second (at most one rewrite a second).
    await vi.waitFor(
      () => expect(readRunSummary(join(dir, 'summary.json'))).toMatchObject({ n: 1, complete: false }),
      { timeout: 5_000, interval: 100 },
    );
    const stopped = await served.stop();
    expect(stopped.status).toBe(0);
    expect(stopped.stderr).toContain(`episodes recorded in ${out}`);
    expect(records(dir)).toMatchObject([
      { index: 0, success: true, terminated: true },
      { index: 1, turnsTaken: 1, truncated: true },
    ]);
    expect(readRunSummary(join(dir, 'summary.json'))).toMatchObject({ n: 2, solved: 1, complete: true });

    const report = cli.run(['report', dir]);
    expect(report.status, report.stderr).toBe(0);
    expect(report.stdout).toContain('demo/sql');
    expect(report.stdout).toContain('serve:ws');

    const refused = cli.run(['serve', '--port', '0', '--out', out]);
    expectOneLineError(refused, /--out: .*demo-sql already holds episodes: pass --append/);
    const alone = cli.run(['serve', '--port', '0', '--append']);
    expectOneLineError(alone, /--append needs --out/);
    // A file where the directory should be.
    const file = join(tempDir('serve-file'), 'taken');
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, 'x');
    expectOneLineError(cli.run(['serve', '--port', '0', '--out', file]), /--out: .* is not a directory/);
    expect(readFileSync(file, 'utf8')).toBe('x');
  });
});
