import type { RecordedEpisode } from '../../replay/recorded-trajectories.js';

/**
 * One recorded turn, read independently of the strategy that recorded it: code that ran, a control
 * action, or an answer the original did not take as code (it ran nothing and got a format reminder).
 * `end`: the recording holds no more turns for the task (it stopped earlier, or the original's
 * policy failed to answer: a `blocked` action).
 */
export type RecordedMove =
  | { readonly kind: 'code'; readonly code: string; readonly thought?: string }
  | { readonly kind: 'submit'; readonly answer?: string; readonly thought?: string }
  | { readonly kind: 'skip'; readonly thought?: string }
  | { readonly kind: 'text'; readonly text: string; readonly thought?: string }
  | { readonly kind: 'end' };

/**
 * The code of a ReAct recording's action as the original read it: from the first `execute[` to the
 * last `]`, across lines (text the model wrote after it, such as an imagined `Observation`, is not
 * part of it).
 */
const EXECUTE = /execute\[([\s\S]*)\]/;
const SUBMIT = /^submit(?:[ \t]+([\s\S]*))?$/;

/** The recorded move of `turn` (from 0) in `episode`. */
export function recordedMove(episode: RecordedEpisode, turn: number): RecordedMove {
  const action = episode.actions[turn];
  if (action === undefined || action === 'blocked') return { kind: 'end' };
  const thought = episode.thoughts?.[turn];
  const withThought = thought === undefined ? {} : { thought };
  if (episode.tookAsCode?.[turn] === false) return { kind: 'text', text: action, ...withThought };
  const trimmed = action.trim();
  if (trimmed === 'skip') return { kind: 'skip', ...withThought };
  const submit = SUBMIT.exec(trimmed);
  if (submit) {
    const answer = submit[1]?.trim();
    return answer ? { kind: 'submit', answer, ...withThought } : { kind: 'submit', ...withThought };
  }
  const execute = EXECUTE.exec(action);
  return { kind: 'code', code: execute ? execute[1]! : action, ...withThought };
}
