import type { AgentTurn, TurnContext, TurnRecord } from '../../agents/agent.js';
import { LlmAgent } from '../../agents/llm/llm-agent.js';
import type { ModelClient, ModelRequest, ModelResponse } from '../../agents/llm/model-client.js';
import type { StrategyName } from '../../agents/llm/prompts/prompt-set.js';
import { PrefixStore } from '../../agents/llm/strategies/prefix-store.js';
import { episodeLine } from '../../core/run-files/episode-line.js';
import type { Task } from '../../core/task.js';
import { type BenchFigure, type BenchTarget, figure } from './bench-figure.js';

export interface LlmBenchOptions {
  /** The model client (the real provider client against a loopback endpoint). */
  readonly client: ModelClient;
  readonly strategies: readonly StrategyName[];
  /** Episodes per strategy. */
  readonly episodes: number;
  readonly turnsPerEpisode: number;
  /** Where `prefixes.json` is written, as in a run. */
  readonly runDir: string;
  readonly target?: BenchTarget;
  readonly onProgress?: (message: string) => void;
}

/** A client that adds up the time its inner client's calls took. */
class TimedClient implements ModelClient {
  readonly id: string;
  readonly provider: string;
  readonly model: string;
  readonly #inner: ModelClient;
  modelMs = 0;

  constructor(inner: ModelClient) {
    this.#inner = inner;
    this.id = inner.id;
    this.provider = inner.provider;
    this.model = inner.model;
  }

  async complete(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
    const started = performance.now();
    try {
      return await this.#inner.complete(request, signal);
    } finally {
      this.modelMs += performance.now() - started;
    }
  }
}

/** A command's output of 40 lines (about 2 KB), as an observation of every turn. */
const OUTPUT = Array.from(
  { length: 40 },
  (_, line) => `-rw-r--r-- 1 user user ${line * 97} file-${line}.txt`,
).join('\n');

/**
 * The overhead of the language-model loop per turn, model time excluded: the policy's turn (prompt
 * building, the request's assembly, parsing, the call's record, the prefix reference) minus the time
 * of the model call itself, plus the serialisation of the turn into its `episodes.jsonl` line. The
 * environment is not involved: every turn sees the same 40-line output.
 */
export async function runLlmBench(options: LlmBenchOptions): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  const timed = new TimedClient(options.client);
  const prefixes = new PrefixStore(options.runDir);
  for (const strategy of options.strategies) {
    const agent = new LlmAgent({ client: timed, env: 'bash', strategy, prefixes });
    const samples: number[] = [];
    for (let episode = 0; episode < options.episodes + 1; episode += 1) {
      options.onProgress?.(`llm ${strategy}: episode ${episode + 1}/${options.episodes + 1}`);
      const task: Task = {
        id: `bench-${episode}`,
        index: episode,
        query: 'How many files are in /data?',
        meta: {},
      };
      const policy = agent.episode(task);
      const history: TurnRecord[] = [];
      for (let turn = 0; turn < options.turnsPerEpisode; turn += 1) {
        const context: TurnContext = {
          task,
          turn,
          history,
          observation: { text: turn === 0 ? '' : OUTPUT, durationMs: 0 },
          reward: 0,
        };
        const modelBefore = timed.modelMs;
        const started = performance.now();
        const next = (await policy.act(context)) as AgentTurn | undefined;
        if (next === undefined || next.stop) break;
        const record: TurnRecord = {
          action:
            typeof next.action === 'object' && next.action.type === 'code' ? next.action.code : 'submit',
          observation: OUTPUT,
          reward: 0,
          admissible: next.action !== undefined,
          durationMs: 0,
          ...(next.llm ? { llm: next.llm } : {}),
        };
        episodeLine({
          taskId: task.id,
          index: task.index,
          dataset: 'bench',
          query: task.query,
          turns: [record],
          reward: 0,
          maxReward: 0,
          success: false,
          turnsTaken: 1,
          terminated: false,
          truncated: false,
          durationMs: 0,
        });
        const overhead = performance.now() - started - (timed.modelMs - modelBefore);
        history.push(record);
        // The first episode warms up (module loading, the provider client's first connection).
        if (episode > 0) samples.push(overhead);
      }
      await policy.close?.();
    }
    figures.push(
      figure(
        {
          backend: options.client.provider,
          group: 'llm loop (model time excluded)',
          name: `${strategy}: overhead per turn`,
          unit: 'ms',
          ...(options.target ? { target: options.target } : {}),
        },
        samples,
      ),
    );
  }
  return figures;
}
