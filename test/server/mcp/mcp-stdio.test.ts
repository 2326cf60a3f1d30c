import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { readEpisodeRecords } from '../../../src/harness/episode-record.js';
import { readRunSummary } from '../../../src/harness/run-files/read-run-summary.js';
import { TASK_RESOURCE_URI } from '../../../src/server/mcp/create-mcp-server.js';
import { runMcpBench } from '../../../src/server/mcp/mcp-bench.js';
import { expectOneLineError } from '../../support/cli-runner.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';
import { BIN } from '../../support/project.js';
import { waitFor } from '../../support/wait-for.js';
import { connectStdio, resourceJson, structured } from './stdio-client.js';

// `intercode mcp` over stdio, driven by the MCP SDK's own client: the compiled CLI, real SQLite and
// real bwrap sandboxes; every episode lands in the run directory.
const noBwrap = await bwrapMissing();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function finished(outDir: string): boolean {
  const path = join(outDir, 'summary.json');
  return existsSync(path) && readRunSummary(path).complete;
}

describe('intercode mcp (stdio)', () => {
  it('demo/sql: lists the tools, reads the task, executes, submits the gold for reward 1, records the run', async ({
    cli,
    tempDir,
  }) => {
    const outDir = join(tempDir('mcp-sql'), 'run');
    const session = await connectStdio(['demo/sql', '--task', '0', '--out', outDir], cli.cache);
    try {
      const { tools } = await session.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['execute', 'reset', 'submit']);
      expect(tools.find((tool) => tool.name === 'execute')?.inputSchema.required).toEqual(['code']);
      const resource = await session.client.readResource({ uri: TASK_RESOURCE_URI });
      const task = resourceJson(resource.contents);
      expect(task).toMatchObject({ dataset: 'demo/sql', task_id: 'count-ships', index: 0 });
      expect(task.instruction).toBe('How many ships does the company have?');

      const wrong = structured(
        await session.client.callTool({
          name: 'execute',
          arguments: { code: 'SELECT * FROM no_such_table' },
        }),
      );
      expect(wrong.output).toMatch(/no such table/);
      expect(wrong).toMatchObject({ turn: 1, done: false, truncated: false });
      expect(wrong).not.toHaveProperty('reward');
      const gold = structured(
        await session.client.callTool({ name: 'execute', arguments: { code: 'SELECT COUNT(*) FROM ships' } }),
      );
      expect(gold).toMatchObject({ turn: 2, done: false, exit_code: null });
      const end = structured(await session.client.callTool({ name: 'submit', arguments: {} }));
      expect(end).toMatchObject({ reward: 1, done: true, turn: 3 });
      expect(end.reward_parts).toBeDefined();
      const again = await session.client.callTool({ name: 'execute', arguments: { code: 'SELECT 1' } });
      expect(again.isError).toBe(true);
      expect(JSON.stringify(again.content)).toMatch(/call reset/);
    } finally {
      await session.close();
    }
    await waitFor(() => finished(outDir), 30_000, 'the final summary');
    const records = readEpisodeRecords(join(outDir, 'episodes.jsonl'));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ taskId: 'count-ships', reward: 1, success: true, turnsTaken: 3 });
    expect(records[0]?.turns.map((turn) => turn.action)).toEqual([
      'SELECT * FROM no_such_table',
      'SELECT COUNT(*) FROM ships',
      'submit',
    ]);
    const summary = readRunSummary(join(outDir, 'summary.json'));
    expect(summary).toMatchObject({
      agent: 'mcp',
      dataset: 'demo/sql',
      model: 'mcp:intercode-test@0.0.1',
      n: 1,
      solved: 1,
    });
  });

  it('demo/bash: executes in a sandbox (a non-zero exit is data), submits the gold, resets to another task', async ({
    cli,
    tempDir,
    needs,
  }) => {
    needs(noBwrap);
    const outDir = join(tempDir('mcp-bash'), 'run');
    const session = await connectStdio(['demo/bash', '--task', '0', '--out', outDir], cli.cache);
    const updates: string[] = [];
    try {
      await session.client.subscribeResource({ uri: TASK_RESOURCE_URI });
      const { ResourceUpdatedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
      session.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
        updates.push(note.params.uri);
      });
      const failing = await session.client.callTool({
        name: 'execute',
        arguments: { code: 'ls /no/such/dir' },
      });
      expect(failing.isError).toBeFalsy();
      expect(structured(failing).exit_code).not.toBe(0);
      const gold = structured(
        await session.client.callTool({
          name: 'execute',
          arguments: { code: "find /demo/src -type f -name '*.py' | wc -l" },
        }),
      );
      expect(gold).toMatchObject({ output: '5\n', exit_code: 0, turn: 2 });
      const end = structured(await session.client.callTool({ name: 'submit', arguments: {} }));
      expect(end).toMatchObject({ reward: 1, done: true });
      expect(Object.keys(end.reward_parts as object).sort()).toEqual([
        'answer_similarity',
        'file_changes',
        'file_diff',
      ]);
      const next = structured(await session.client.callTool({ name: 'reset', arguments: { index: 1 } }));
      expect(next).toMatchObject({ dataset: 'demo/bash', index: 1 });
      await waitFor(() => updates.length > 0, 10_000, 'the resource update');
      expect(updates).toEqual([TASK_RESOURCE_URI]);
      const resource = await session.client.readResource({ uri: TASK_RESOURCE_URI });
      expect(resourceJson(resource.contents)).toMatchObject({
        index: 1,
        task_id: next.task_id,
      });
      const unknown = await session.client.callTool({ name: 'reset', arguments: { task_id: 'nope' } });
      expect(unknown.isError).toBe(true);
      expect((unknown.content as { text: string }[])[0]?.text).toBe(
        'task_id "nope" is not a task of demo/bash',
      );
    } finally {
      await session.close();
    }
    await waitFor(() => finished(outDir), 30_000, 'the final summary');
    const records = readEpisodeRecords(join(outDir, 'episodes.jsonl'));
    // The reset to task 1 started an episode nobody played: recorded as cut short, with no turns.
    expect(
      records.map((record) => [record.index, record.reward, record.terminated, record.truncated]),
    ).toEqual([
      [0, 1, true, false],
      [1, 0, false, true],
    ]);
  });

  it('records an episode left unfinished at disconnect as truncated', async ({ cli, tempDir }) => {
    const outDir = join(tempDir('mcp-cut'), 'run');
    const session = await connectStdio(['demo/sql', '--task', '2', '--out', outDir], cli.cache);
    try {
      structured(await session.client.callTool({ name: 'execute', arguments: { code: 'SELECT 1' } }));
    } finally {
      // The transport ends the server's stdin: the client is gone.
      await session.close();
    }
    await waitFor(() => finished(outDir), 30_000, 'the final summary');
    const records = readEpisodeRecords(join(outDir, 'episodes.jsonl'));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      index: 2,
      turnsTaken: 1,
      terminated: false,
      truncated: true,
      reward: 0,
    });
    expect(records[0]?.error).toBeUndefined();
  });

  it('records the unfinished episode when stopped by SIGTERM, then exits', async ({ cli, tempDir }) => {
    const outDir = join(tempDir('mcp-term'), 'run');
    const session = await connectStdio(['demo/sql', '--task', '1', '--out', outDir], cli.cache);
    const pid = session.transport.pid!;
    try {
      structured(await session.client.callTool({ name: 'execute', arguments: { code: 'SELECT 1' } }));
      process.kill(pid, 'SIGTERM');
      await waitFor(() => finished(outDir), 30_000, 'the final summary');
    } finally {
      await session.close();
    }
    await waitFor(() => !alive(pid), 30_000, 'the server to exit');
    expect(session.stderr()).toMatch(/interrupted; finishing cleanly/);
    const records = readEpisodeRecords(join(outDir, 'episodes.jsonl'));
    expect(records.map((record) => [record.index, record.turnsTaken, record.truncated])).toEqual([
      [1, 1, true],
    ]);
  });

  it('cuts an episode at --max-turns and says so', async ({ cli, tempDir }) => {
    const outDir = join(tempDir('mcp-turns'), 'run');
    const session = await connectStdio(['demo/sql', '--max-turns', '2', '--out', outDir], cli.cache);
    try {
      structured(await session.client.callTool({ name: 'execute', arguments: { code: 'SELECT 1' } }));
      const last = structured(
        await session.client.callTool({ name: 'execute', arguments: { code: 'SELECT 2' } }),
      );
      expect(last).toMatchObject({ turn: 2, done: true, truncated: true });
    } finally {
      await session.close();
    }
    await waitFor(() => finished(outDir), 30_000, 'the final summary');
    const records = readEpisodeRecords(join(outDir, 'episodes.jsonl'));
    expect(records.map((record) => [record.truncated, record.truncatedBy])).toEqual([[true, 'max-turns']]);
  });

  it('refuses bad input in one line on stderr before the MCP channel opens', ({ cli, tempDir }) => {
    const outDir = join(tempDir('mcp-bad'), 'run');
    const outOfRange = cli.run(['mcp', 'demo/sql', '--task', '99', '--out', outDir]);
    expectOneLineError(outOfRange, /--task: task index 99 is out of range 0-\d+ for demo\/sql/);
    expect(outOfRange.stdout).toBe('');
    expect(existsSync(outDir)).toBe(false);
    const turns = cli.run(['mcp', 'demo/sql', '--max-turns', '0']);
    expectOneLineError(turns, /--max-turns must be a positive integer/);
    expect(turns.stdout).toBe('');
    const notApplicable = cli.run(['mcp', 'demo/sql', '--backend', 'bwrap']);
    expectOneLineError(notApplicable, /--backend/);
    expect(notApplicable.stdout).toBe('');
    const used = join(tempDir('mcp-used'), 'run');
    mkdirSync(used);
    writeFileSync(join(used, 'episodes.jsonl'), '{}\n');
    const taken = cli.run(['mcp', 'demo/sql', '--out', used]);
    expectOneLineError(taken, /--out: .* already holds episodes: choose another directory/);
    expect(taken.stdout).toBe('');
    const dataset = cli.run(['mcp', 'no/such-dataset']);
    expectOneLineError(dataset, /no\/such-dataset/);
  });

  it('measures the execute round trip for intercode bench', async ({ cli, mirror }) => {
    void mirror;
    void cli;
    const figures = await runMcpBench({ command: [process.execPath, BIN], samples: 5 });
    expect(figures.map((figure) => [figure.group, figure.name, figure.n])).toEqual([
      ['mcp (demo/sql, stdio)', 'start-up to tool list', 1],
      ['mcp (demo/sql, stdio)', 'execute round trip', 5],
    ]);
    for (const figure of figures) expect(figure.p50).toBeGreaterThan(0);
  });
});
