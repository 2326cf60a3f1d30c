import type { EpisodePolicy } from '../../agent.js';
import type { ChatMessage } from '../model-client.js';
import { actionParser } from '../parsers/parsed-action.js';
import { truncateObservation } from '../prompts/prompt-set.js';
import { agentTurnOf } from './agent-turn-of.js';
import { dialogueWindow } from './dialogue-window.js';
import { lastDefinedFunction } from './last-defined-function.js';
import { requestContext, type StrategyContext } from './strategy-context.js';

/** The paper's Try Again limits on an observation shown to the model. */
export const TRY_AGAIN_OBSERVATION = { chars: 1000, rows: 50 } as const;

/**
 * `try-again` (and `single`, its first turn only): a chat of the system prompt, the task's query,
 * then per turn the model's answer and the environment's output with the reward of that turn
 * (truncated as the paper did: 1,000 characters, 50 rows), within the dialogue limit. The harness
 * scores every code action and ends the episode at reward 1 (CTF: only a `submit` is scored).
 */
export function tryAgainStrategy(context: StrategyContext, options: { single: boolean }): EpisodePolicy {
  const parse = actionParser(context.env);
  const query: ChatMessage = { role: 'user', content: context.prompts.query(context.task.query) };
  const opening = [...context.opening, query];
  const later: ChatMessage[] = [];
  let reminded = false;
  return {
    act: async (turn) => {
      if (options.single && turn.turn > 0) return undefined;
      context.limits.start();
      const stop = context.limits.reached();
      if (stop) return { stop };
      if (turn.turn > 0) {
        const content = reminded
          ? context.prompts.formatReminder()
          : context.prompts.observation({
              output: truncateObservation(turn.observation.text, TRY_AGAIN_OBSERVATION),
              ...(context.env !== 'ctf' ? { reward: turn.reward } : {}),
              query: context.task.query,
            });
        later.push({ role: 'user', content });
      }
      const { response, record } = await context.caller.call(
        { prefix: context.prefix, rest: dialogueWindow(opening, later, context.dialogueLimit) },
        requestContext(context, turn.turn),
        turn.signal,
      );
      later.push({ role: 'assistant', content: response.text });
      const parsed = parse(response.text);
      reminded = parsed.kind === 'invalid';
      const defaultAnswer = context.env === 'python' ? lastDefinedFunction(turn.history) : undefined;
      return agentTurnOf(parsed, {
        output: response.text,
        calls: [record],
        reminder: context.prompts.formatReminder(),
        ...(defaultAnswer !== undefined ? { defaultAnswer } : {}),
      });
    },
  };
}
