import type { ModelCallRecord } from '../../../core/run-files/episode-record-schema.js';
import type { AgentTurn, EpisodePolicy } from '../../agent.js';
import type { ChatMessage } from '../model-client.js';
import { actionParser, planParser } from '../parsers/parsed-action.js';
import { truncateObservation } from '../prompts/prompt-set.js';
import { agentTurnOf } from './agent-turn-of.js';
import { lastDefinedFunction } from './last-defined-function.js';
import { requestContext, type StrategyContext } from './strategy-context.js';

/** The paper's Plan & Solve limits on the observation sent with the next step. */
export const PLAN_SOLVE_OBSERVATION = { chars: 1000, rows: 25 } as const;

/** The reason recorded when a plan has no numbered step. */
export const NO_PLAN = 'the plan has no numbered steps';

/**
 * `plan-solve`: the first turn asks for a numbered plan (call `plan`), then every turn sends one
 * step of it with the last output (call `step`) and runs the code the model answers. The harness
 * scores each step as Try Again does; the episode ends after the last step (or at reward 1). A plan
 * without numbered steps is a format error: the next turn asks for a plan again.
 */
export function planSolveStrategy(context: StrategyContext): EpisodePolicy {
  const parse = actionParser(context.env);
  const parsePlan = planParser();
  const dialogue: ChatMessage[] = [...context.opening];
  let steps: string[] | undefined;
  let next = 0;
  const call = async (turn: number, purpose: string, signal: AbortSignal | undefined) => {
    const made = await context.caller.call(
      { prefix: context.prefix, rest: [...dialogue] },
      requestContext(context, turn, purpose),
      signal,
    );
    dialogue.push({ role: 'assistant', content: made.response.text });
    return made;
  };
  return {
    act: async (turn): Promise<AgentTurn | undefined> => {
      context.limits.start();
      const stop = context.limits.reached();
      if (stop) return { stop };
      const calls: ModelCallRecord[] = [];
      if (steps === undefined) {
        const request = context.prompts.planRequest?.(context.task.query) ?? context.task.query;
        dialogue.push({ role: 'user', content: request });
        const plan = await call(turn.turn, 'plan', turn.signal);
        calls.push(plan.record);
        const parsed = parsePlan(plan.response.text);
        if (parsed.length === 0) {
          return agentTurnOf(
            { kind: 'invalid', reason: NO_PLAN },
            { output: plan.response.text, calls, reminder: context.prompts.formatReminder() },
          );
        }
        steps = parsed;
      }
      const step = steps[next];
      if (step === undefined) return undefined;
      next += 1;
      const output =
        next > 1 ? truncateObservation(turn.observation.text, PLAN_SOLVE_OBSERVATION) : undefined;
      const content = context.prompts.step?.({ step, ...(output !== undefined ? { output } : {}) }) ?? step;
      dialogue.push({ role: 'user', content });
      const answer = await call(turn.turn, 'step', turn.signal);
      calls.push(answer.record);
      const defaultAnswer = context.env === 'python' ? lastDefinedFunction(turn.history) : undefined;
      return agentTurnOf(parse(answer.response.text), {
        output: answer.response.text,
        calls,
        reminder: context.prompts.formatReminder(),
        step,
        ...(defaultAnswer !== undefined ? { defaultAnswer } : {}),
      });
    },
  };
}
