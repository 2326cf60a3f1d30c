import { type Command, Option } from 'commander';
import type { CostBudget } from '../agents/llm/cost-budget.js';
import type { LlmAgent } from '../agents/llm/llm-agent.js';
import type { ModelClient, RetryRecord } from '../agents/llm/model-client.js';
import { parseModelSpec } from '../agents/llm/model-spec.js';
import type { StrategyName } from '../agents/llm/prompts/prompt-set.js';
import type { PrefixStore } from '../agents/llm/strategies/prefix-store.js';
import { envLanguageOf, STRATEGY_NAMES } from '../agents/llm/strategies/strategy-names.js';
import { UsageError } from '../core/errors.js';
import { positiveInteger, positiveNumber } from './options.js';

/** The options of `intercode run` that configure a language-model agent. */
export interface LlmFlags {
  model?: string;
  strategy?: StrategyName;
  temperature?: number;
  maxTokens?: number;
  providerOption?: string[];
  baseUrl?: string;
  apiKeyEnv?: string;
  prices?: string;
  maxCost?: number;
  cache?: string;
  maxEpisodeTokens?: number;
  maxEpisodeSeconds?: number;
}

/** The long names of the options only `--agent llm` takes, by flag property. */
const LLM_ONLY: Readonly<Record<Exclude<keyof LlmFlags, 'model'>, string>> = {
  strategy: '--strategy',
  temperature: '--temperature',
  maxTokens: '--max-tokens',
  providerOption: '--provider-option',
  baseUrl: '--base-url',
  apiKeyEnv: '--api-key-env',
  prices: '--prices',
  maxCost: '--max-cost',
  cache: '--cache',
  maxEpisodeTokens: '--max-episode-tokens',
  maxEpisodeSeconds: '--max-episode-seconds',
};

function temperature(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0 || number > 2) {
    throw new UsageError(`--temperature must be a number from 0 to 2, got "${value}"`);
  }
  return number;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Declares the language-model options of `intercode run`. */
export function addLlmOptions(command: Command): Command {
  return command
    .option(
      '--model <provider:model>',
      'language model for --agent llm (implies it): openai:gpt-4o, anthropic:…, replay:FILE',
    )
    .addOption(
      new Option('--strategy <strategy>', 'prompting strategy of --agent llm (default: try-again)').choices(
        STRATEGY_NAMES,
      ),
    )
    .option('--temperature <t>', "sampling temperature, 0 to 2 (default: the provider's)", temperature)
    .option('--max-tokens <n>', 'output tokens per model call', positiveInteger('--max-tokens'))
    .option(
      '--provider-option <key=value>',
      'passed to the provider as is (JSON value, e.g. reasoningEffort=\\"low\\"); repeatable',
      collect,
    )
    .option('--base-url <url>', 'endpoint of the provider (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL)')
    .option(
      '--api-key-env <name>',
      'environment variable that holds the API key (never a key on the command line)',
    )
    .option('--prices <file>', 'JSON price table over the bundled one (USD per million tokens)')
    .option(
      '--max-cost <usd>',
      'start no new episode once the run would cross this cost',
      positiveNumber('--max-cost'),
    )
    .option(
      '--cache <dir>',
      'answer identical model requests from this directory (re-runs and resumes cost nothing)',
    )
    .option(
      '--max-episode-tokens <n>',
      'end an episode as truncated once its model calls used this many tokens',
      positiveInteger('--max-episode-tokens'),
    )
    .option(
      '--max-episode-seconds <s>',
      'end an episode as truncated once it ran this long',
      positiveNumber('--max-episode-seconds'),
    );
}

/**
 * The agent a run's flags ask for: `--model` implies `--agent llm`; `--agent llm` needs `--model`;
 * the language-model options are refused with any other agent (never silently ignored).
 */
export function resolveAgentName(agent: string | undefined, flags: LlmFlags): string {
  const name = agent ?? (flags.model !== undefined ? 'llm' : 'gold');
  if (name === 'llm') {
    if (flags.model === undefined) throw new UsageError('--agent llm needs --model PROVIDER:MODEL');
    return name;
  }
  if (flags.model !== undefined)
    throw new UsageError(`--model applies to --agent llm only, not --agent ${name}`);
  for (const [key, option] of Object.entries(LLM_ONLY)) {
    if (flags[key as keyof LlmFlags] !== undefined)
      throw new UsageError(`${option} applies to --agent llm only`);
  }
  return name;
}

/** `--provider-option key=value…` as provider options of `provider` (values are JSON, else text). */
export function providerOptionsOf(
  provider: string,
  pairs: readonly string[] | undefined,
): Record<string, Record<string, unknown>> | undefined {
  if (pairs === undefined || pairs.length === 0) return undefined;
  const options: Record<string, unknown> = {};
  for (const pair of pairs) {
    const match = /^([A-Za-z_][\w.-]*)=([\s\S]*)$/.exec(pair);
    if (!match) throw new UsageError(`--provider-option must be key=value, got "${pair}"`);
    const [, key, text] = match as unknown as [string, string, string];
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch {
      // Not JSON: the text itself (reasoningEffort=low).
    }
    options[key] = value;
  }
  return { [provider]: options };
}

/** What `intercode run --agent llm` sets up before any episode: the agent and what watches it. */
export interface LlmSetup {
  readonly agent: LlmAgent;
  readonly client: ModelClient;
  readonly budget: CostBudget | undefined;
  /** Opened on the run directory once it is known (`prefixes.json`). */
  readonly prefixes: PrefixStore;
}

/**
 * Builds the language-model agent of a run and checks, before any episode or run file, every option
 * and the model itself: the provider, the key, the price file, a price for `--max-cost`, and that the
 * endpoint answers and knows the model (`check()`).
 */
export async function setUpLlm(
  flags: LlmFlags,
  run: { env: string; handicap: boolean; onRetry: (retry: RetryRecord) => void },
): Promise<LlmSetup> {
  // The model loop's modules (prices, caches, schemas) are loaded only for --agent llm.
  const [{ CostBudget }, { LlmAgent }, { PriceTable }, { withResponseCache }, { PrefixStore }] =
    await Promise.all([
      import('../agents/llm/cost-budget.js'),
      import('../agents/llm/llm-agent.js'),
      import('../agents/llm/price-table.js'),
      import('../agents/llm/response-cache.js'),
      import('../agents/llm/strategies/prefix-store.js'),
    ]);
  const env = envLanguageOf(run.env);
  const spec = parseModelSpec(flags.model ?? '');
  let apiKey: string | undefined;
  if (flags.apiKeyEnv !== undefined) {
    apiKey = process.env[flags.apiKeyEnv];
    if (apiKey === undefined || apiKey === '')
      throw new UsageError(`--api-key-env: the environment variable ${flags.apiKeyEnv} is not set`);
  }
  const providerOptions = providerOptionsOf(spec.provider, flags.providerOption);
  const prices = PriceTable.load(flags.prices);
  // The provider libraries load only for a language-model run (they add most of a second to start-up).
  const { createModelClient } = await import('../agents/llm/create-model-client.js');
  let client = createModelClient(spec, {
    ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    onRetry: run.onRetry,
  });
  let budget: CostBudget | undefined;
  if (flags.maxCost !== undefined) {
    CostBudget.check(client.id, prices);
    budget = new CostBudget(flags.maxCost);
  }
  if (flags.cache !== undefined) {
    // Answers of two endpoints serving the same model name are not interchangeable: the base URL
    // is part of the key. The cache folder is checked here, before the endpoint is contacted.
    const baseUrl =
      flags.baseUrl ??
      (spec.provider === 'openai'
        ? process.env.OPENAI_BASE_URL
        : spec.provider === 'anthropic'
          ? process.env.ANTHROPIC_BASE_URL
          : undefined);
    client = withResponseCache(client, flags.cache, baseUrl ? { namespace: baseUrl } : {});
  }
  await client.check?.();
  const prefixes = new PrefixStore();
  const agent = new LlmAgent({
    client,
    env,
    strategy: flags.strategy ?? 'try-again',
    sampling: {
      ...(flags.temperature !== undefined ? { temperature: flags.temperature } : {}),
      ...(flags.maxTokens !== undefined ? { maxTokens: flags.maxTokens } : {}),
      ...(providerOptions ? { providerOptions } : {}),
    },
    prices,
    ...(budget ? { budget } : {}),
    prefixes,
    ...(run.handicap ? { handicap: true } : {}),
    limits: {
      ...(flags.maxEpisodeTokens !== undefined ? { maxTokens: flags.maxEpisodeTokens } : {}),
      ...(flags.maxEpisodeSeconds !== undefined ? { maxSeconds: flags.maxEpisodeSeconds } : {}),
    },
  });
  return { agent, client, budget, prefixes };
}
