import type { AgentTurn, EpisodePolicy, TurnContext, TurnRecord } from '../../../src/agents/agent.js';
import type {
  ModelClient,
  ModelRequest,
  ModelResponse,
  TokenUsage,
} from '../../../src/agents/llm/model-client.js';
import type { Task } from '../../../src/core/task.js';

/** What a scripted answer may set; the rest is filled in. */
export type Answer = Partial<ModelResponse> | ((request: ModelRequest) => Partial<ModelResponse>);

export const USAGE: TokenUsage = { input: 100, output: 20, cachedInput: 40, cacheWrite: 0, reasoning: 5 };

/**
 * A language model for pure unit tests of the strategies: answers from a list, in order, and keeps
 * every request. (Tests of the real providers use the ScriptedLlmServer.)
 */
export class ListModelClient implements ModelClient {
  readonly id = 'test:list-model';
  readonly provider = 'test';
  readonly model = 'list-model';
  readonly requests: ModelRequest[] = [];
  readonly #answers: Answer[];

  constructor(answers: readonly Answer[]) {
    this.#answers = [...answers];
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const next = this.#answers.shift();
    if (next === undefined) throw new Error(`no answer left for request ${this.requests.length}`);
    const answer = typeof next === 'function' ? next(request) : next;
    return {
      text: '',
      toolCalls: [],
      finishReason: 'stop',
      usage: USAGE,
      latencyMs: 3,
      retries: [],
      ...answer,
    };
  }
}

export function task(overrides: Partial<Task> = {}): Task {
  return { id: 't0', index: 0, query: 'count the files in /data', meta: {}, ...overrides };
}

/** One turn of the harness, reduced to what a policy sees: the turn's record as play-episode writes it. */
export function recordOf(turn: AgentTurn | undefined, observation: string, reward: number): TurnRecord {
  const action = turn?.action;
  const text =
    action === undefined
      ? (turn?.text ?? '')
      : typeof action === 'string'
        ? action
        : action.type === 'code'
          ? action.code
          : action.type === 'submit'
            ? `submit${action.answer ? ` ${action.answer}` : ''}`
            : 'skip';
  return {
    action: text,
    observation: action === undefined ? (turn?.observation ?? '') : observation,
    reward: action === undefined ? 0 : reward,
    admissible: action !== undefined,
    durationMs: 1,
    ...(turn?.llm ? { llm: turn.llm } : {}),
  };
}

/**
 * Drives `policy` for the given environment replies (output and reward per turn), as the harness
 * would: each turn sees the previous observation (the format reminder after a turn without action).
 */
export async function drive(
  policy: EpisodePolicy,
  taskOf: Task,
  replies: readonly { output: string; reward?: number }[],
  maxTurns = replies.length,
): Promise<AgentTurn[]> {
  const turns: AgentTurn[] = [];
  const history: TurnRecord[] = [];
  let observation = '';
  let reward = 0;
  for (let turn = 0; turn < maxTurns; turn += 1) {
    const context: TurnContext = {
      task: taskOf,
      turn,
      history,
      observation: { text: observation, durationMs: 0 },
      reward,
    };
    const next = (await policy.act(context)) as AgentTurn | undefined;
    if (next === undefined || next.stop) {
      if (next) turns.push(next);
      break;
    }
    turns.push(next);
    const reply = replies[turn] ?? { output: '' };
    const record = recordOf(next, reply.output, reply.reward ?? 0);
    history.push(record);
    observation = record.observation;
    reward = record.reward;
  }
  return turns;
}
