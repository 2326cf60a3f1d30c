import { EnvError } from './errors.js';

/** What an agent can do in one step. */
export type Action =
  /** A command, query or snippet in the environment's language. */
  | { readonly type: 'code'; readonly code: string }
  /** End the episode and score it; `answer` carries a CTF flag or an MBPP function name. */
  | { readonly type: 'submit'; readonly answer?: string }
  /** Give up: the episode ends with reward 0. */
  | { readonly type: 'skip' };

/**
 * Turns an agent's string into an action: `submit`, `submit <answer>` (the whole rest of the line,
 * inner spaces kept) and `skip` are control actions; everything else is code, unchanged.
 */
export function parseAction(text: string): Action {
  const trimmed = text.trim();
  if (trimmed === 'skip') return { type: 'skip' };
  if (trimmed === 'submit') return { type: 'submit' };
  const match = /^submit[ \t]+([\s\S]*)$/.exec(trimmed);
  if (match) {
    const answer = match[1]!.trim();
    return answer === '' ? { type: 'submit' } : { type: 'submit', answer };
  }
  return { type: 'code', code: text };
}

/** Accepts either form and validates the object form. */
export function toAction(action: Action | string): Action {
  if (typeof action === 'string') return parseAction(action);
  switch (action?.type) {
    case 'code':
      if (typeof action.code !== 'string') {
        throw new EnvError('ENV_INVALID_ACTION', 'code action needs a string "code" field');
      }
      return action;
    case 'submit':
      if (action.answer !== undefined && typeof action.answer !== 'string') {
        throw new EnvError('ENV_INVALID_ACTION', 'submit action "answer" must be a string');
      }
      return action;
    case 'skip':
      return action;
    default:
      throw new EnvError(
        'ENV_INVALID_ACTION',
        `unknown action type: ${JSON.stringify((action as { type?: unknown })?.type)}`,
      );
  }
}

/** The string form of an action, as written to trajectories. */
export function formatAction(action: Action): string {
  switch (action.type) {
    case 'code':
      return action.code;
    case 'submit':
      return action.answer === undefined ? 'submit' : `submit ${action.answer}`;
    case 'skip':
      return 'skip';
  }
}
