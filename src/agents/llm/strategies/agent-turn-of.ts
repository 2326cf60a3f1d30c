import type { ModelCallRecord } from '../../../core/run-files/episode-record-schema.js';
import type { AgentTurn } from '../../agent.js';
import type { ParsedAction } from '../parsers/parsed-action.js';

/** What a turn's record carries besides its action. */
export interface TurnDetails {
  /** The model's raw output, shown as the action of a turn that has none. */
  readonly output: string;
  readonly calls: readonly ModelCallRecord[];
  /** What the model is told when its output holds no runnable action. */
  readonly reminder: string;
  readonly thought?: string;
  readonly step?: string;
  /** The answer of a bare `submit` (Python: the function defined last). */
  readonly defaultAnswer?: string;
}

/**
 * The turn of a parsed model output: an action to run, or, when the output held none, no action
 * with the format reminder as the observation and the parser's reason as `formatError` (nothing
 * runs; the turn is inadmissible and counts in the error rate).
 */
export function agentTurnOf(parsed: ParsedAction, details: TurnDetails): AgentTurn {
  const llm = {
    calls: details.calls,
    ...(details.thought !== undefined ? { thought: details.thought } : {}),
    ...(details.step !== undefined ? { step: details.step } : {}),
  };
  switch (parsed.kind) {
    case 'code':
      return { action: { type: 'code', code: parsed.code }, llm };
    case 'submit': {
      const answer = parsed.answer ?? details.defaultAnswer;
      return { action: answer === undefined ? { type: 'submit' } : { type: 'submit', answer }, llm };
    }
    case 'skip':
      return { action: { type: 'skip' }, llm };
    case 'invalid':
      return {
        observation: details.reminder,
        text: details.output,
        llm: { ...llm, formatError: parsed.reason },
      };
  }
}
