import { useEffect, useRef, useState } from 'preact/hooks';
import type { EpisodeNeighbours, EpisodeQuery } from '../../src/viewer/viewer-api.js';
import { type EpisodeResponse, fetchEpisode, fetchNeighbours } from './api.js';
import { type FileChange, FileDiff } from './file-diff.js';
import { markFirstRender } from './first-render.js';
import { cost, duration, number } from './format.js';
import { TextBlock } from './text-block.js';
import { type Turn, TurnView } from './turn-view.js';

interface EpisodeProps {
  readonly run: number;
  readonly episode: number;
  readonly query: EpisodeQuery;
  readonly onOpen: (episode: number) => void;
  readonly onBack: () => void;
}

/** The details a scored turn records (`details` of a turn record), as far as the page uses them. */
interface ScoreDetails {
  readonly goldOutput?: unknown;
  readonly agentChanges?: readonly FileChange[];
  readonly evalChanges?: readonly FileChange[];
  readonly [key: string]: unknown;
}

function goldText(gold: unknown): string {
  if (gold === undefined || gold === null) return '';
  return typeof gold === 'string' ? gold : JSON.stringify(gold, null, 2);
}

/** One episode: its query, the gold beside the agent's last output, the file diff, every turn. */
export function EpisodeView(props: EpisodeProps) {
  const [data, setData] = useState<EpisodeResponse | undefined>(undefined);
  const [around, setAround] = useState<EpisodeNeighbours | undefined>(undefined);
  const [error, setError] = useState('');
  const [current, setCurrent] = useState(0);

  /** A next/previous asked for before the episode's place in the list was known: done when it is. */
  const pending = useRef<'next' | 'previous' | null>(null);

  useEffect(() => {
    setData(undefined);
    setAround(undefined);
    setCurrent(0);
    let stale = false;
    fetchEpisode(props.run, props.episode)
      .then((response) => {
        if (stale) return;
        setData(response);
        markFirstRender();
      })
      .catch((reason: Error) => setError(reason.message));
    fetchNeighbours(props.run, props.query, props.episode)
      .then((neighbours) => !stale && setAround(neighbours))
      .catch(() => undefined);
    return () => {
      stale = true;
    };
  }, [props.run, props.episode, JSON.stringify(props.query)]);

  const go = (direction: 'next' | 'previous') => {
    if (around === undefined) {
      pending.current = direction;
      return;
    }
    pending.current = null;
    const target = around[direction];
    if (target !== null) props.onOpen(target);
  };
  useEffect(() => {
    if (around !== undefined && pending.current !== null) go(pending.current);
  }, [around]);

  const turns = (data?.record.turns ?? []) as readonly Turn[];
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target && ['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName)) return;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === 'j') setCurrent((turn) => Math.min(turn + 1, Math.max(turns.length - 1, 0)));
      else if (event.key === 'k') setCurrent((turn) => Math.max(turn - 1, 0));
      else if (event.key === 'n') go('next');
      else if (event.key === 'p') go('previous');
      else if (event.key === 'Escape') props.onBack();
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [turns.length, around, props.onOpen, props.onBack]);

  useEffect(() => {
    document.querySelector(`[data-turn="${current}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [current]);

  if (error) return <div class="error">{error}</div>;
  if (!data) return <div class="loading">loading episode…</div>;
  const { record } = data;
  const scored = [...turns].reverse().find((turn) => turn.details !== undefined || turn.parts !== undefined);
  const details = (scored?.details ?? {}) as ScoreDetails;
  const lastOutput = [...turns].reverse().find((turn) => !/^submit\b/.test(turn.action))?.observation ?? '';
  const goldOutput = details.goldOutput;
  const status =
    record.error !== undefined
      ? 'error'
      : record.success
        ? 'solved'
        : record.truncated
          ? 'truncated'
          : 'failed';
  return (
    <section class="episode" data-testid="episode-view">
      <nav class="episode-nav">
        <button type="button" onClick={props.onBack} title="Escape">
          ← list
        </button>
        <button type="button" disabled={around?.previous == null} onClick={() => go('previous')} title="p">
          ↑ previous
        </button>
        <button type="button" disabled={around?.next == null} onClick={() => go('next')} title="n">
          ↓ next
        </button>
        <span class="position">
          {around?.position != null ? `${around.position + 1} of ${around.total}` : ''} · keys: j/k turns, n/p
          episodes, Esc list
        </span>
      </nav>
      <header>
        <h2>
          {record.taskId}
          {record.sample ? ` #${record.sample}` : ''} <span class={`status ${status}`}>{status}</span>
        </h2>
        <div class="facts">
          {record.group ? `group ${record.group} · ` : ''}reward {record.maxReward.toFixed(3)} ·{' '}
          {record.turnsTaken} turns · {duration(record.durationMs)}
          {record.usage
            ? ` · ${number(record.usage.input)} in / ${number(record.usage.output)} out tokens · ${cost(record.costUsd ?? null)}`
            : ''}
          {record.truncatedBy ? ` · cut short by ${record.truncatedBy}` : ''}
          {record.goldCorrupt ? ' · the gold itself failed: the reward cannot be trusted' : ''}
          {record.scoreLimit ? ` · scorer limit: ${record.scoreLimit}` : ''}
        </div>
        {record.error !== undefined ? <TextBlock text={record.error} testId="episode-error" /> : null}
      </header>
      <h3>Query</h3>
      <TextBlock text={record.query} testId="episode-query" />
      <div class="gold" data-testid="gold">
        <div>
          <h3>Gold solution</h3>
          <TextBlock text={goldText(record.gold)} empty="(none recorded)" />
          <h3>Gold output</h3>
          <TextBlock
            text={goldOutput === undefined ? '' : goldText(goldOutput)}
            testId="gold-output"
            empty={goldOutput === undefined ? '(not recorded)' : '(empty)'}
          />
        </div>
        <div>
          <h3>Agent's last output</h3>
          <TextBlock text={lastOutput} testId="agent-output" />
        </div>
      </div>
      {details.agentChanges || details.evalChanges ? (
        <FileDiff agent={details.agentChanges ?? []} gold={details.evalChanges ?? []} />
      ) : null}
      <h3>Turns</h3>
      {turns.map((turn, index) => (
        <TurnView
          key={index}
          turn={turn}
          index={index}
          current={index === current}
          prefixes={data.prefixes}
        />
      ))}
      {turns.length === 0 ? <p>No turns.</p> : null}
    </section>
  );
}
