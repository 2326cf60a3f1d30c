import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  type CallToolResult,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpEpisode, McpTask } from './mcp-episode.js';

/** The URI of the task resource: the current episode's dataset, task id and instruction. */
export const TASK_RESOURCE_URI = 'intercode://task/current';

export interface McpServerOptions {
  /** The server's version in `initialize` (the package version). */
  readonly version: string;
}

const progressShape = {
  turn: z.int().min(0).describe('turns taken in this episode'),
  done: z.boolean().describe('the episode is over: call reset to play again'),
  truncated: z.boolean().describe('it was cut at the turn limit rather than submitted'),
};

const taskShape = {
  dataset: z.string(),
  task_id: z.string(),
  index: z.int().min(0),
  instruction: z.string(),
  max_turns: z.int().min(1),
};

function taskJson(task: McpTask): z.infer<z.ZodObject<typeof taskShape>> {
  return {
    dataset: task.dataset,
    task_id: task.taskId,
    index: task.index,
    instruction: task.instruction,
    max_turns: task.maxTurns,
  };
}

/** A failure of the episode's machinery (never a non-zero exit, which is a result): one line. */
function toolError(error: unknown): CallToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return { isError: true, content: [{ type: 'text', text: message.split('\n')[0] ?? message }] };
}

function result(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

function progressLine(
  progress: { turn: number; done: boolean; truncated: boolean },
  maxTurns?: number,
): string {
  const turns = maxTurns === undefined ? `turn ${progress.turn}` : `turn ${progress.turn}/${maxTurns}`;
  if (!progress.done) return turns;
  return `${turns}, episode over${progress.truncated ? ' (turn limit reached)' : ''}: call reset to play again`;
}

/**
 * An MCP server for one episode at a time of `episode`: tools `execute`, `submit` and `reset`, and
 * the task as the resource {@link TASK_RESOURCE_URI} (subscribers are told when a reset changes
 * it). The transport is the caller's (stdio, Streamable HTTP). The client's name from `initialize`
 * is passed to the episode for its record.
 */
export function createMcpServer(episode: McpEpisode, options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'intercode', version: options.version },
    {
      capabilities: { resources: { subscribe: true, listChanged: true } },
      instructions:
        'One InterCode episode: read the task from the intercode://task/current resource (or reset), run code with execute, and end the episode with submit to get the reward.',
    },
  );
  const subscribed = new Set<string>();
  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  server.server.oninitialized = () => {
    const client = server.server.getClientVersion();
    if (client) episode.setClient?.({ name: client.name, version: client.version });
  };

  server.registerResource(
    'task',
    TASK_RESOURCE_URI,
    {
      title: 'Current task',
      description: "The current episode's dataset, task id and instruction",
      mimeType: 'application/json',
    },
    (uri) => {
      const task = episode.task();
      const body = task ? taskJson(task) : { dataset: null, task_id: null, instruction: null };
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(body) }],
      };
    },
  );

  server.registerTool(
    'execute',
    {
      title: 'Execute code',
      description:
        "Runs code in the episode's environment (a shell command, a SQL query, Python) and returns its output and exit code. A non-zero exit code is a result, not an error.",
      inputSchema: { code: z.string().describe('the command, query or code to run') },
      outputSchema: {
        output: z.string(),
        exit_code: z.int().nullable().describe('null when the environment does not run commands'),
        timed_out: z.boolean(),
        reward: z.number().optional().describe('only when the environment scores every step'),
        ...progressShape,
      },
    },
    async ({ code }) => {
      try {
        const step = await episode.execute(code);
        const structured = {
          output: step.output,
          exit_code: step.exitCode,
          timed_out: step.timedOut,
          ...(step.reward !== undefined ? { reward: step.reward } : {}),
          turn: step.turn,
          done: step.done,
          truncated: step.truncated,
        };
        const notes = [
          step.exitCode !== null ? `exit code ${step.exitCode}` : undefined,
          step.timedOut ? 'timed out' : undefined,
          progressLine(step, episode.task()?.maxTurns),
        ].filter(Boolean);
        return result(
          `${step.output}${step.output.endsWith('\n') || step.output === '' ? '' : '\n'}[${notes.join('; ')}]`,
          structured,
        );
      } catch (error) {
        return toolError(error);
      }
    },
  );

  server.registerTool(
    'submit',
    {
      title: 'Submit',
      description:
        'Ends the episode and scores it: returns the reward (0 to 1) and its parts. Pass answer for the environments that take one (a CTF flag, a function name).',
      inputSchema: { answer: z.string().optional().describe('the answer, when the task asks for one') },
      outputSchema: {
        output: z.string(),
        reward: z.number(),
        reward_parts: z.record(z.string(), z.number()).optional(),
        ...progressShape,
      },
    },
    async ({ answer }) => {
      try {
        const end = await episode.submit(answer);
        const parts = Object.entries(end.rewardParts ?? {})
          .map(([name, value]) => `${name} ${value}`)
          .join(', ');
        return result(`reward ${end.reward}${parts ? ` (${parts})` : ''}`, {
          output: end.output,
          reward: end.reward,
          ...(end.rewardParts ? { reward_parts: end.rewardParts } : {}),
          turn: end.turn,
          done: end.done,
          truncated: end.truncated,
        });
      } catch (error) {
        return toolError(error);
      }
    },
  );

  server.registerTool(
    'reset',
    {
      title: 'Reset',
      description:
        'Starts a new episode of the same dataset (an unfinished one is recorded as cut short) and returns its instruction. Without arguments: task 0.',
      inputSchema: {
        task_id: z.string().optional().describe('the task id (beats index and seed)'),
        index: z.int().min(0).optional().describe('the task index in the dataset'),
        seed: z.int().min(0).optional().describe('task index = seed mod dataset size'),
      },
      outputSchema: taskShape,
    },
    async ({ task_id, index, seed }) => {
      try {
        const task = await episode.reset({
          ...(task_id !== undefined ? { taskId: task_id } : {}),
          ...(index !== undefined ? { index } : {}),
          ...(seed !== undefined ? { seed } : {}),
        });
        if (subscribed.has(TASK_RESOURCE_URI))
          await server.server.sendResourceUpdated({ uri: TASK_RESOURCE_URI }).catch(() => {});
        return result(`task ${task.taskId} of ${task.dataset}:\n${task.instruction}`, taskJson(task));
      } catch (error) {
        return toolError(error);
      }
    },
  );
  return server;
}
