import type { EpisodePolicy } from '../../agent.js';
import type { ChatMessage, ToolCall } from '../model-client.js';
import { TOOL_SPECS, toolCallParser } from '../parsers/parsed-action.js';
import { truncateObservation } from '../prompts/prompt-set.js';
import { agentTurnOf } from './agent-turn-of.js';
import { lastDefinedFunction } from './last-defined-function.js';
import { requestContext, type StrategyContext } from './strategy-context.js';
import { TRY_AGAIN_OBSERVATION } from './try-again-strategy.js';

/** The reason recorded when a model answered without calling a tool. */
export const NO_TOOL_CALL = 'the answer calls no tool';

/** The result given for the extra tool calls of one answer: only the first runs. */
export const ONE_CALL_PER_TURN = 'Not run: only the first tool call of an answer runs.';

/**
 * `tools`: native tool calling. The model gets the `execute` and `submit` tools; the first tool call
 * of each answer is the turn's action (the harness runs it, never the provider library), its output
 * comes back as that call's tool result (truncated as Try Again does), and every other call of the
 * answer gets a result saying it did not run. An answer without a tool call, or a call with bad
 * arguments, is a format error: the model is reminded (as a user message, or as the call's result).
 * `submit` ends the episode; when the turns run out the harness submits.
 */
export function toolsStrategy(context: StrategyContext): EpisodePolicy {
  const parse = toolCallParser(context.env);
  const tools = TOOL_SPECS(context.env);
  const dialogue: ChatMessage[] = [
    ...context.opening,
    { role: 'user', content: context.prompts.query(context.task.query) },
  ];
  let pending: readonly ToolCall[] = [];
  return {
    act: async (turn) => {
      context.limits.start();
      const stop = context.limits.reached();
      if (stop) return { stop };
      if (turn.turn > 0) {
        const [first, ...others] = pending;
        const output = truncateObservation(turn.observation.text, TRY_AGAIN_OBSERVATION);
        if (first === undefined) {
          dialogue.push({ role: 'user', content: output });
        } else {
          dialogue.push({ role: 'tool', toolCallId: first.id, toolName: first.name, content: output });
          for (const other of others) {
            dialogue.push({
              role: 'tool',
              toolCallId: other.id,
              toolName: other.name,
              content: ONE_CALL_PER_TURN,
            });
          }
        }
      }
      const { response, record } = await context.caller.call(
        { prefix: context.prefix, rest: [...dialogue], tools },
        requestContext(context, turn.turn),
        turn.signal,
      );
      pending = response.toolCalls;
      dialogue.push({
        role: 'assistant',
        content: response.text,
        ...(response.toolCalls.length > 0 ? { toolCalls: response.toolCalls } : {}),
      });
      const first = response.toolCalls[0];
      const parsed = first === undefined ? { kind: 'invalid' as const, reason: NO_TOOL_CALL } : parse(first);
      const defaultAnswer = context.env === 'python' ? lastDefinedFunction(turn.history) : undefined;
      return agentTurnOf(parsed, {
        output: first === undefined ? response.text : `${first.name} ${first.argumentsText}`,
        calls: [record],
        reminder: context.prompts.formatReminder(),
        ...(defaultAnswer !== undefined ? { defaultAnswer } : {}),
      });
    },
  };
}
