import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { DEMO_SQL_TASKS } from '../../../src/datasets/demo/demo-sql-tasks.js';
import { readEpisodeRecords } from '../../../src/harness/episode-record.js';
import { type OpenedRun, planRun } from '../../../src/harness/run-plan.js';
import { readRunSummary } from '../../../src/harness/run-summary.js';
import { LibraryEpisode } from '../../../src/server/mcp/library-episode.js';
import { RunRecorder } from '../../../src/server/mcp/run-recorder.js';
import { it } from '../../support/fixtures.js';

// LibraryEpisode on an opened demo/sql run (real SQLite, no sandbox), recording through RunRecorder.

let run: OpenedRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

const first = DEMO_SQL_TASKS[0]!;
const second = DEMO_SQL_TASKS[1]!;

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
});
