import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, MIRROR, PROJECT_ROOT } from '../../support/project.js';

/** The SDK's own client, connected to `intercode mcp <args>` (the compiled CLI) over stdio. */
export interface StdioSession {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** What the server wrote to stderr so far (stdout is the MCP channel). */
  stderr(): string;
  /** Closes the client (stdin ends, the server records and exits) and waits for the process to go. */
  close(): Promise<void>;
}

/** Starts `intercode mcp` with the file's cache and the local mirror, and connects to it. */
export async function connectStdio(args: readonly string[], cache: string): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    cwd: PROJECT_ROOT,
    env: {
      ...(process.env as Record<string, string>),
      INTERCODE_CACHE_DIR: cache,
      INTERCODE_DATA_MIRROR: MIRROR,
      INTERCODE_DEBUG: '',
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'intercode-test', version: '0.0.1' });
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => stderr,
    close: async () => {
      await client.close();
    },
  };
}

/** The structured result of a tool call (every tool of the server returns one unless it fails). */
export function structured(result: unknown): Record<string, unknown> {
  const call = result as CallToolResult;
  if (call.isError) throw new Error(`tool failed: ${JSON.stringify(call.content)}`);
  return call.structuredContent as Record<string, unknown>;
}

/** The JSON of the task resource's one text content. */
export function resourceJson(
  contents: readonly ({ text: string } | { blob: string })[],
): Record<string, unknown> {
  const first = contents[0];
  if (!first || !('text' in first)) throw new Error('the resource has no text content');
  return JSON.parse(first.text) as Record<string, unknown>;
}
