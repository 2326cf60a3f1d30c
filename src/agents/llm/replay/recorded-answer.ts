import { ModelError } from '../../../core/errors.js';
import type { RecordedEpisode } from '../../replay/recorded-trajectories.js';
import type { ModelRequest, ToolCall } from '../model-client.js';
import { type RecordedMove, recordedMove } from './recorded-move.js';

/** What the replay model answers: the text a model would write, and its tool calls. */
export interface RecordedAnswer {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
}

/** The language tag of each environment's code block (CTF actions are shell commands). */
const FENCE_LANGUAGE: Readonly<Record<string, string>> = {
  bash: 'bash',
  sql: 'sql',
  python: 'python',
  ctf: 'bash',
};

/**
 * The recorded turn of `request` written the way a model answers in the request's strategy (design
 * notes: docs/agents/replay-model.md):
 * - `single`, `try-again`, a `plan-solve` step: code in one fenced block of the env's language;
 *   `submit`/`skip` bare; an answer the original did not take as code as it was recorded, unfenced,
 *   so that the parser rejects it too and the turns stay aligned;
 * - `react`: `Thought: …` and `Action: execute[…]` / `submit` / `skip`;
 * - `plan-solve`, call `plan`: the recorded plan, numbered;
 * - `tools`: an `execute` or `submit` tool call (text only for an answer that was not code).
 * When the recording holds no more turns for the task (see `endOfRecording`), the episode ends there
 * as the recorded one did, with the rewards already reached.
 */
export function recordedAnswer(
  episode: RecordedEpisode,
  request: ModelRequest,
  source: string,
): RecordedAnswer {
  const { strategy, env, turn, purpose } = request.context;
  if (strategy === 'plan-solve' && purpose === 'plan')
    return { text: planText(episode, turn, source), toolCalls: [] };
  const move = recordedMove(episode, turn);
  if (move.kind === 'end') return endOfRecording(strategy, env, turn, episode.thoughts !== undefined);
  switch (strategy) {
    case 'single':
    case 'try-again':
    case 'plan-solve':
      return { text: chatText(move, env), toolCalls: [] };
    case 'react':
      return { text: reactText(move), toolCalls: [] };
    case 'tools':
      return toolAnswer(move, turn);
    default:
      throw new ModelError('MODEL_REJECTED', `replay model ${source}: unknown strategy ${strategy}`);
  }
}

/**
 * The answer after the last recorded turn. Where every turn is scored (`single`, `try-again`,
 * `plan-solve`) in Bash and SQL: `submit`, which scores the state the last turn was already scored
 * on, so the episode's rewards stay those of the recording (a recording stops where the original
 * reached reward 1, or where its model failed to answer); so too in ReAct on a recording of another
 * strategy. `skip` for a ReAct recording (the original's episode ended without a submit, with reward
 * 0) and in CTF and Python (a submit would need an answer); for `tools` a `submit` call (the harness
 * would submit at the turn limit anyway).
 */
function endOfRecording(
  strategy: string,
  env: string,
  turn: number,
  reactRecording: boolean,
): RecordedAnswer {
  if (strategy === 'tools') return { text: '', toolCalls: [toolCall(`replay-${turn}`, 'submit', {})] };
  const scored =
    strategy === 'single' ||
    strategy === 'try-again' ||
    strategy === 'plan-solve' ||
    (strategy === 'react' && !reactRecording);
  const submit = scored && (env === 'bash' || env === 'sql');
  const action = submit ? 'submit' : 'skip';
  return {
    text: strategy === 'react' ? `Thought: The recording ends here.\nAction: ${action}` : action,
    toolCalls: [],
  };
}

/**
 * The plan answered on `turn`: the recorded steps, numbered. On a turn before the one whose plan was
 * taken (`planTurn`; our own runs ask again after a plan without steps), and for a recording without
 * steps whose turn was a format error, the answer recorded for that turn, which held no plan.
 */
function planText(episode: RecordedEpisode, turn: number, source: string): string {
  if (!episode.steps || turn < (episode.planTurn ?? 0)) {
    const move = recordedMove(episode, turn);
    if (move.kind === 'text') return move.text;
    if (!episode.steps) {
      throw new ModelError(
        'MODEL_REJECTED',
        `replay model ${source}: task ${episode.key} has no recorded plan (replay a Plan & Solve recording for --strategy plan-solve)`,
      );
    }
  }
  // A recorded plan without steps (the original found none) stays one: the parser finds none either.
  // An empty step (the original's parser split after a number such as a year) is written `…`, so
  // that the plan keeps its number of steps and each turn its recorded action.
  return episode.steps.map((step, index) => `${index + 1}. ${step.trim() === '' ? '…' : step}`).join('\n');
}

function fenced(code: string, env: string): string {
  return `\`\`\`${FENCE_LANGUAGE[env] ?? env}\n${code}\n\`\`\``;
}

type PlayedMove = Exclude<RecordedMove, { kind: 'end' }>;

function chatText(move: PlayedMove, env: string): string {
  switch (move.kind) {
    case 'code':
      return fenced(move.code, env);
    case 'submit':
      return move.answer === undefined ? 'submit' : `submit ${move.answer}`;
    case 'skip':
      return 'skip';
    case 'text':
      return move.text;
  }
}

function reactText(move: PlayedMove): string {
  const thought = move.thought ?? '';
  const action = (() => {
    switch (move.kind) {
      case 'code':
        return `execute[${move.code}]`;
      case 'submit':
        return move.answer === undefined ? 'submit' : `submit ${move.answer}`;
      case 'skip':
        return 'skip';
      case 'text':
        return move.text;
    }
  })();
  return `Thought: ${thought}\nAction: ${action}`;
}

function toolCall(id: string, name: string, args: Record<string, unknown>): ToolCall {
  return { id, name, arguments: args, argumentsText: JSON.stringify(args) };
}

function toolAnswer(move: PlayedMove, turn: number): RecordedAnswer {
  const id = `replay-${turn}`;
  switch (move.kind) {
    case 'code':
      return { text: '', toolCalls: [toolCall(id, 'execute', { code: move.code })] };
    case 'submit':
      return {
        text: '',
        toolCalls: [toolCall(id, 'submit', move.answer === undefined ? {} : { answer: move.answer })],
      };
    case 'skip':
      return { text: 'skip', toolCalls: [] };
    case 'text':
      return { text: move.text, toolCalls: [] };
  }
}
