/**
 * What the LLM agent's tests share: an agent on a scripted model client that bills every call, and
 * readers of the requests it sent and the turns it gave.
 */
import type { AgentTurn } from '../../../src/agents/agent.js';
import { LlmAgent, type LlmAgentOptions } from '../../../src/agents/llm/llm-agent.js';
import type { ChatMessage, ModelRequest } from '../../../src/agents/llm/model-client.js';
import { type Answer, ListModelClient } from './in-test-model-client.js';

/** A model answer with `code` in a fenced block of `language`. */
export const fenced = (language: string, code: string) => `Here it is:\n\`\`\`${language}\n${code}\n\`\`\``;
/** The price the test agents bill per input token. */
export const PRICE_PER_INPUT_TOKEN = 1e-6;

/** A try-again Bash agent on a client answering `answers`, and what it was billed. */
export function agentOf(answers: readonly Answer[], options: Partial<LlmAgentOptions> = {}) {
  const client = new ListModelClient(answers);
  const billed: number[] = [];
  const agent = new LlmAgent({
    client,
    env: 'bash',
    strategy: 'try-again',
    prices: { cost: (_model, usage) => usage.input * PRICE_PER_INPUT_TOKEN },
    budget: { start: () => {}, add: (cost) => billed.push(cost ?? Number.NaN), finish: () => {} },
    ...options,
  });
  return { agent, client, billed };
}

/** The roles of a request's messages. */
export const rolesOf = (request: ModelRequest | undefined) =>
  request?.messages.map((message) => message.role);
/** The text of a request's last message. */
export const lastText = (request: ModelRequest | undefined): string => {
  const last = request?.messages.at(-1) as ChatMessage | undefined;
  return last && 'content' in last ? last.content : '';
};
/** The action of a turn. */
export const actionOf = (turn: AgentTurn | undefined) => turn?.action;
