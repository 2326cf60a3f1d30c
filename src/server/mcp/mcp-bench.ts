import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type BenchFigure, type BenchTarget, figure } from '../../harness/bench/bench-figure.js';

export interface McpBenchOptions {
  /** How to start the CLI: `[process.execPath, <the intercode bin>]`. */
  readonly command: readonly [string, ...string[]];
  /** Dataset served (default `demo/sql`, whose steps are SQLite queries: the MCP overhead shows). */
  readonly dataset?: string;
  /** Measured execute calls. */
  readonly samples: number;
  readonly targets?: { readonly execute?: BenchTarget };
  readonly onProgress?: (message: string) => void;
}

/**
 * Figures of `intercode mcp` over stdio, driven by the MCP SDK's client as an MCP host would:
 * the time from spawning the server to its tool list (start-up: Node, dataset, env, first reset),
 * and the round trip of one `execute` (JSON-RPC over the pipes, the step, the record of the turn).
 * The run directory it writes goes to a temporary folder, removed afterwards.
 */
export async function runMcpBench(options: McpBenchOptions): Promise<BenchFigure[]> {
  const dataset = options.dataset ?? 'demo/sql';
  const group = `mcp (${dataset}, stdio)`;
  const progress = options.onProgress ?? (() => {});
  const outRoot = mkdtempSync(join(tmpdir(), 'intercode-mcp-bench-'));
  const [command, ...prefix] = options.command;
  const started = performance.now();
  const transport = new StdioClientTransport({
    command,
    args: [
      ...prefix,
      'mcp',
      dataset,
      '--out',
      join(outRoot, 'run'),
      '--max-turns',
      String(options.samples + 10),
    ],
    env: process.env as Record<string, string>,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'intercode-bench', version: '1' });
  const executes: number[] = [];
  let startup: number;
  try {
    progress(`${group}: starting the server`);
    await client.connect(transport);
    await client.listTools();
    startup = performance.now() - started;
    const execute = async () => {
      const result = (await client.callTool({
        name: 'execute',
        arguments: { code: 'SELECT 1' },
      })) as CallToolResult;
      if (result.isError) throw new Error(`mcp bench: execute failed: ${JSON.stringify(result.content)}`);
    };
    for (let i = 0; i < 5; i += 1) await execute();
    progress(`${group}: ${options.samples} execute round trips`);
    for (let i = 0; i < options.samples; i += 1) {
      const before = performance.now();
      await execute();
      executes.push(performance.now() - before);
    }
  } finally {
    await client.close().catch(() => {});
    rmSync(outRoot, { recursive: true, force: true });
  }
  return [
    figure({ backend: '-', group, name: 'start-up to tool list', unit: 'ms' }, [startup]),
    figure(
      {
        backend: '-',
        group,
        name: 'execute round trip',
        unit: 'ms',
        ...(options.targets?.execute ? { target: options.targets.execute } : {}),
      },
      executes,
    ),
  ];
}
