import { jsonSchema, type ModelMessage, type ToolSet, tool } from 'ai';
import type { ChatMessage, ToolSpec } from '../model-client.js';

/** Provider options that mark a message as the end of the cached prefix (Anthropic's `cache_control`). */
const CACHE_BREAKPOINT = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

/**
 * Our messages in the AI SDK's shape. `cacheBreakpoints`: a message marked `cacheBreakpoint` carries
 * Anthropic's ephemeral cache control (the provider ignores the key otherwise). A tool call whose
 * arguments were not valid JSON goes back with `{}` (both APIs require an object); the model's own
 * text of it is in the tool result the strategy wrote.
 */
export function toSdkMessages(messages: readonly ChatMessage[], cacheBreakpoints: boolean): ModelMessage[] {
  return messages.map((message): ModelMessage => {
    switch (message.role) {
      case 'system':
      case 'user': {
        const marked = cacheBreakpoints && message.cacheBreakpoint === true;
        return marked
          ? { role: message.role, content: message.content, providerOptions: CACHE_BREAKPOINT }
          : { role: message.role, content: message.content };
      }
      case 'assistant': {
        if (message.toolCalls === undefined || message.toolCalls.length === 0) {
          return { role: 'assistant', content: message.content };
        }
        return {
          role: 'assistant',
          content: [
            ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
            ...message.toolCalls.map((call) => ({
              type: 'tool-call' as const,
              toolCallId: call.id,
              toolName: call.name,
              input: call.arguments ?? {},
            })),
          ],
        };
      }
      default:
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.toolCallId,
              toolName: message.toolName,
              output: { type: 'text', value: message.content },
            },
          ],
        };
    }
  });
}

/** Our tool specs as AI SDK tools without `execute`: the SDK returns the calls, the harness runs them. */
export function toSdkTools(tools: readonly ToolSpec[] | undefined): ToolSet | undefined {
  if (tools === undefined || tools.length === 0) return undefined;
  return Object.fromEntries(
    tools.map((spec) => [
      spec.name,
      tool({ description: spec.description, inputSchema: jsonSchema({ ...spec.parameters }) }),
    ]),
  );
}
