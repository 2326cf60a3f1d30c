import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect } from 'vitest';
import type { Env } from '../../../src/core/env.js';
import { DEMO_SQL_TASKS } from '../../../src/datasets/demo/demo-sql-tasks.js';
import { readEpisodeRecords } from '../../../src/harness/episode-record.js';
import { readRunSummary } from '../../../src/harness/run-files/read-run-summary.js';
import { type OpenedRun, planRun } from '../../../src/harness/run-plan.js';
import { createMcpServer } from '../../../src/server/mcp/create-mcp-server.js';
import { LibraryEpisode } from '../../../src/server/mcp/library-episode.js';
import { RunRecorder } from '../../../src/server/run-recorder.js';
import { it } from '../../support/fixtures.js';

// LibraryEpisode on an opened demo/sql run (real SQLite, no sandbox), recording through RunRecorder.

let run: OpenedRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

const first = DEMO_SQL_TASKS[0]!;
const second = DEMO_SQL_TASKS[1]!;

/**
 * The real SQL env with one injected failure: an env that dies cannot be had on demand, so the action
 * `BOOM` throws as a dead sandbox or database would.
 */
function failingOn(env: Env): Env {
  return {
    reset: (options) => env.reset(options),
    step: (action) =>
      typeof action === 'object' && action.type === 'code' && action.code === 'BOOM'
        ? Promise.reject(new Error('the database server went away'))
        : env.step(action),
    score: () => env.score(),
    close: () => env.close(),
  };
}

async function openEpisode(
  outDir: string,
  maxTurns = 10,
): Promise<{ episode: LibraryEpisode; recorder: RunRecorder }> {
  const plan = await planRun({ dataset: 'demo/sql' });
  run = await plan.open(await plan.loadDataset());
  const recorder = new RunRecorder(outDir, { ...run.description, agent: 'mcp', maxTurns });
  return { episode: new LibraryEpisode(run, { maxTurns, recorder }), recorder };
}

describe('LibraryEpisode', () => {
  it('serves concurrent calls one at a time, in order, and records the episode as intercode run does', async ({
    tempDir,
    cache,
  }) => {
    void cache;
    const outDir = join(tempDir('library'), 'run');
    const { episode } = await openEpisode(outDir);
    const task = await episode.reset({ taskId: first.id });
    expect(task).toMatchObject({ dataset: 'demo/sql', taskId: first.id, instruction: first.query });
    const [a, b, end] = await Promise.all([
      episode.execute('SELECT 1'),
      episode.execute(String(first.gold)),
      episode.submit(),
    ]);
    expect([a.turn, b.turn, end.turn]).toEqual([1, 2, 3]);
    expect(end).toMatchObject({ reward: 1, done: true, truncated: false });
    await expect(episode.execute('SELECT 1')).rejects.toThrow(/call reset/);
    await episode.close();
    const records = readEpisodeRecords(join(outDir, 'episodes.jsonl'));
    expect(records).toHaveLength(1);
    expect(records[0]?.turns.map((turn) => turn.action)).toEqual(['SELECT 1', String(first.gold), 'submit']);
    expect(readRunSummary(join(outDir, 'summary.json'))).toMatchObject({ n: 1, solved: 1, complete: true });
  });

  it('records an episode cut by a reset or by close as truncated, and picks tasks by id, index and seed', async ({
    tempDir,
    cache,
  }) => {
    void cache;
    const outDir = join(tempDir('library-cut'), 'run');
    const { episode, recorder } = await openEpisode(outDir);
    await episode.reset({ index: 0 });
    await episode.execute('SELECT 1');
    const next = await episode.reset({ seed: DEMO_SQL_TASKS.length + 1 });
    expect(next.taskId).toBe(second.id);
    expect(recorder.episodes.map((record) => [record.taskId, record.truncated, record.turnsTaken])).toEqual([
      [first.id, true, 1],
    ]);
    expect(readRunSummary(join(outDir, 'summary.json')).complete).toBe(false);
    await expect(episode.reset({ index: 999 })).rejects.toThrow(/index 999 is out of range/);
    // The failed reset left the episode in play.
    expect(episode.task()?.taskId).toBe(second.id);
    await episode.close();
    await episode.close();
    const records = readEpisodeRecords(join(outDir, 'episodes.jsonl'));
    expect(records.map((record) => [record.taskId, record.truncated, record.terminated])).toEqual([
      [first.id, true, false],
      [second.id, true, false],
    ]);
    await expect(episode.execute('SELECT 1')).rejects.toThrow(/closed/);
  });

  it('turns an env failure into an MCP tool error, records it as a failed episode and plays on with a new env', async ({
    tempDir,
    cache,
  }) => {
    void cache;
    const outDir = join(tempDir('library-fail'), 'run');
    const plan = await planRun({ dataset: 'demo/sql' });
    const opened = await plan.open(await plan.loadDataset());
    run = opened;
    let envs = 0;
    const failing: OpenedRun = {
      ...opened,
      createEnv: () => {
        envs += 1;
        return failingOn(opened.createEnv());
      },
    };
    const recorder = new RunRecorder(outDir, { ...opened.description, agent: 'mcp', maxTurns: 10 });
    const episode = new LibraryEpisode(failing, { maxTurns: 10, recorder });
    await episode.reset({ index: 0 });
    const server = createMcpServer(episode, { version: '0.0.0-test' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'in-memory', version: '1' });
    await client.connect(clientSide);
    try {
      const nonZero = await client.callTool({
        name: 'execute',
        arguments: { code: 'SELECT * FROM nowhere' },
      });
      expect(nonZero.isError).toBeFalsy();
      const failed = await client.callTool({ name: 'execute', arguments: { code: 'BOOM' } });
      expect(failed).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'the database server went away' }],
      });
      const again = await client.callTool({ name: 'reset', arguments: { index: 1 } });
      expect(again.isError).toBeFalsy();
      expect(envs).toBe(2);
      const end = await client.callTool({ name: 'execute', arguments: { code: String(second.gold) } });
      expect(end.isError).toBeFalsy();
    } finally {
      await client.close();
      await episode.close();
    }
    const records = readEpisodeRecords(join(outDir, 'episodes.jsonl'));
    expect(records.map((record) => [record.taskId, record.error, record.truncated])).toEqual([
      [first.id, 'the database server went away', false],
      [second.id, undefined, true],
    ]);
    expect(readRunSummary(join(outDir, 'summary.json'))).toMatchObject({ n: 1, episodeErrors: 1 });
  });
});
