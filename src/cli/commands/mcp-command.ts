import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { planRun } from '../../harness/run-plan.js';
import { createMcpServer } from '../../server/mcp/create-mcp-server.js';
import { LibraryEpisode } from '../../server/mcp/library-episode.js';
import { RunRecorder } from '../../server/run-recorder.js';
import { interruptSignal, stopGracefully } from '../interrupt.js';
import { addEnvOptions, type EnvFlags, positiveInteger, runConfigOf } from '../options.js';

interface McpFlags extends EnvFlags {
  task: number;
  out?: string;
  maxTurns: number;
}

function taskIndex(value: string): number {
  if (!/^\d+$/.test(value.trim()))
    throw new UsageError(`--task must be a task index (0, 1, …), got "${value}"`);
  return Number(value);
}

function packageVersion(): string {
  const text = readFileSync(new URL('../../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/** `runs/<dataset>-mcp-<time>`, as `intercode run` names its directories. */
function defaultOutDir(datasetId: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const slug = datasetId.replace(/[^\w.-]+/g, '-');
  return join('runs', `${slug}-mcp-${stamp}`);
}

export function registerMcp(program: Command): void {
  const command = program
    .command('mcp')
    .description(
      'serve episodes of a dataset as MCP tools over stdio (execute, submit, reset; the task as a resource), recorded as a run',
    )
    .argument('<dataset>', 'dataset id or task file')
    .option('--task <n>', 'task index of the first episode', taskIndex, 0)
    .option('--out <dir>', 'run directory (default: runs/<dataset>-mcp-<time>)')
    .option('--max-turns <n>', 'turns before an episode is cut', positiveInteger('--max-turns'), 10);
  addEnvOptions(command).action(async (datasetArg: string, flags: McpFlags) => {
    // Everything that can fail on bad input fails here, before the MCP channel opens on stdout.
    const plan = await planRun(runConfigOf(datasetArg, flags));
    const dataset = await plan.loadDataset();
    if (!dataset.tasks[flags.task]) {
      throw new UsageError(
        `--task: task index ${flags.task} is out of range 0-${dataset.tasks.length - 1} for ${dataset.id}`,
      );
    }
    const outDir = flags.out ?? defaultOutDir(dataset.id);
    // No --resume here: a client's episodes are never mixed into an earlier run.
    const previous = join(outDir, 'episodes.jsonl');
    if (existsSync(previous) && statSync(previous).size > 0)
      throw new UsageError(`--out: ${outDir} already holds episodes: choose another directory`);
    const run = await plan.open(dataset);
    let episode: LibraryEpisode | undefined;
    try {
      const recorder = new RunRecorder(outDir, {
        ...run.description,
        agent: 'mcp',
        maxTurns: flags.maxTurns,
      });
      episode = new LibraryEpisode(run, { maxTurns: flags.maxTurns, recorder });
      await episode.reset({ index: flags.task });
    } catch (error) {
      await episode?.close();
      await run.close();
      throw error;
    }
    const server = createMcpServer(episode, { version: packageVersion() });
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
      process.stdin.once('close', () => resolve());
      // SIGTERM/SIGINT (a client stopping its server): the episode is recorded before exiting.
      interruptSignal.addEventListener('abort', () => resolve(), { once: true });
    });
    stopGracefully();
    await server.connect(transport);
    process.stderr.write(`intercode mcp: serving ${dataset.id} over stdio, recording to ${outDir}\n`);
    await closed;
    // The client went away (or closed stdin): an unfinished episode is recorded as truncated.
    await episode.close();
    await server.close().catch(() => {});
    await run.close();
    process.stderr.write(`intercode mcp: ${outDir} holds the episodes\n`);
  });
}
