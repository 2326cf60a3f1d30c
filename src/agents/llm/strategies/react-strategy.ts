import type { EpisodePolicy } from '../../agent.js';
import type { ChatMessage } from '../model-client.js';
import { reactParser } from '../parsers/parsed-action.js';
import { truncateObservation } from '../prompts/prompt-set.js';
import { agentTurnOf } from './agent-turn-of.js';
import { lastDefinedFunction } from './last-defined-function.js';
import { requestContext, type StrategyContext } from './strategy-context.js';

/** The paper's ReAct limits on an observation shown to the model. */
export const REACT_OBSERVATION = { chars: 350, rows: 25 } as const;

/**
 * Where a model that writes the whole exchange itself is cut: its own made-up observation is never
 * read (the paper's completion loop stopped at the observation line too).
 */
export const REACT_STOP = ['\nObservation'] as const;

/**
 * `react`: one growing transcript (instructions and demonstrations, the question, then each turn's
 * Thought and Action from the model and the Observation from the environment, truncated to 350
 * characters and 25 rows). `execute[…]` runs code, `submit` ends the episode and scores it; when the
 * turns run out the harness submits for the model (the paper's forced submit).
 */
export function reactStrategy(context: StrategyContext): EpisodePolicy {
  const parse = reactParser(context.env);
  const transcript: ChatMessage[] = [
    ...context.opening,
    { role: 'user', content: context.prompts.query(context.task.query) },
  ];
  let reminded = false;
  return {
    act: async (turn) => {
      context.limits.start();
      const stop = context.limits.reached();
      if (stop) return { stop };
      if (turn.turn > 0) {
        const content = reminded
          ? context.prompts.formatReminder()
          : context.prompts.observation({
              output: truncateObservation(turn.observation.text, REACT_OBSERVATION),
              query: context.task.query,
            });
        transcript.push({ role: 'user', content });
      }
      const { response, record } = await context.caller.call(
        { prefix: context.prefix, rest: [...transcript], stop: REACT_STOP },
        requestContext(context, turn.turn),
        turn.signal,
      );
      transcript.push({ role: 'assistant', content: response.text });
      const { thought, action } = parse(response.text);
      reminded = action.kind === 'invalid';
      const defaultAnswer = context.env === 'python' ? lastDefinedFunction(turn.history) : undefined;
      return agentTurnOf(action, {
        output: response.text,
        calls: [record],
        reminder: context.prompts.formatReminder(),
        ...(thought !== undefined ? { thought } : {}),
        ...(defaultAnswer !== undefined ? { defaultAnswer } : {}),
      });
    },
  };
}
