import type { ChatMessageData, TurnRecordData } from '../../src/core/run-files/episode-record-schema.js';
import { cost, duration, number } from './format.js';
import { ScoreDetails } from './score-details.js';
import { TextBlock } from './text-block.js';

/** A turn of a record, with the score details newer runs record. */
export type Turn = TurnRecordData & { readonly details?: Readonly<Record<string, unknown>> };

interface TurnProps {
  readonly turn: Turn;
  readonly index: number;
  readonly current: boolean;
  readonly prefixes: Readonly<Record<string, readonly ChatMessageData[]>>;
}

/** One turn: the model's calls (reasoning folded), the action, the observation, the reward and its parts. */
export function TurnView(props: TurnProps) {
  const { turn, index } = props;
  const calls = turn.llm?.calls ?? [];
  return (
    <article class={`turn${props.current ? ' current' : ''}`} data-testid="turn" data-turn={String(index)}>
      <header>
        <strong>Turn {index + 1}</strong> · reward {turn.reward.toFixed(3)} ·{' '}
        {turn.admissible ? 'admissible' : <span class="inadmissible">inadmissible</span>} ·{' '}
        {duration(turn.durationMs)}
      </header>
      {calls.map((call, number_) => (
        <details key={number_} class="call">
          <summary>
            model call {number_ + 1}: {number(call.usage.input)} in / {number(call.usage.output)} out tokens ·{' '}
            {cost(call.costUsd)} · {duration(call.latencyMs)} · {call.finishReason}
            {call.cached ? ' · from the response cache' : ''}
            {call.retries.length > 0 ? ` · ${call.retries.length} retries` : ''}
          </summary>
          {call.reasoning ? (
            <details class="reasoning">
              <summary>reasoning</summary>
              <TextBlock text={call.reasoning} />
            </details>
          ) : null}
          <details class="messages">
            <summary>
              messages sent (
              {(call.prefix ? (props.prefixes[call.prefix]?.length ?? 0) : 0) + call.messages.length})
            </summary>
            {[...(call.prefix ? (props.prefixes[call.prefix] ?? []) : []), ...call.messages].map(
              (message, at) => (
                <div key={at} class={`message ${message.role}`}>
                  <div class="role">{message.role}</div>
                  <TextBlock text={message.content} />
                </div>
              ),
            )}
          </details>
          <div class="label">model output</div>
          <TextBlock text={call.output} />
        </details>
      ))}
      {turn.llm?.thought ? (
        <>
          <div class="label">thought</div>
          <TextBlock text={turn.llm.thought} />
        </>
      ) : null}
      {turn.llm?.formatError ? (
        <div class="inadmissible">no runnable action: {turn.llm.formatError}</div>
      ) : null}
      <div class="label">action</div>
      <TextBlock text={turn.action} testId="turn-action" />
      <div class="label">observation</div>
      <TextBlock text={turn.observation} testId="turn-observation" />
      {turn.parts ? (
        <table class="parts">
          <tbody>
            {Object.entries(turn.parts).map(([name, value]) => (
              <tr key={name}>
                <th>{name}</th>
                <td>{value.toFixed(3)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {turn.details ? <ScoreDetails details={turn.details} /> : null}
    </article>
  );
}
