import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { EpisodeQuery, EpisodeRow, RunInfo, SortKey } from '../../src/viewer/viewer-api.js';
import { fetchEpisodes } from './api.js';
import { markFirstRender } from './first-render.js';
import { cost, duration } from './format.js';
import { routeHash } from './route.js';

/** Height of a row in pixels (the list is virtual: only the rows in view are in the page). */
export const ROW_HEIGHT = 30;
const PAGE = 200;
/** Rows drawn above and below the visible ones. */
const OVERSCAN = 10;

interface ListProps {
  readonly runs: readonly RunInfo[];
  readonly run: RunInfo;
  readonly query: EpisodeQuery;
  readonly onQuery: (query: EpisodeQuery) => void;
  /** The pages on hand are fetched again when it changes (new episodes arrived). */
  readonly version: number;
}

const SORTS: readonly [SortKey, string][] = [
  ['id', 'order played'],
  ['taskId', 'task'],
  ['reward', 'reward'],
  ['turns', 'turns'],
  ['tokens', 'tokens'],
  ['durationMs', 'duration'],
];

/** The filter bar and the virtual list of a run's episodes, fetched a page at a time as it scrolls. */
export function EpisodeList(props: ListProps) {
  const { run, query } = props;
  const [total, setTotal] = useState<number | undefined>(undefined);
  const [groups, setGroups] = useState<readonly string[]>([]);
  const [pages, setPages] = useState<ReadonlyMap<number, readonly EpisodeRow[]>>(new Map());
  const [error, setError] = useState('');
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  const [text, setText] = useState(query.text ?? '');
  const scroller = useRef<HTMLDivElement>(null);
  const loading = useRef(new Set<number>());
  const key = JSON.stringify([run.id, query]);
  /** The list the answers in flight are for: an answer for an older one is dropped. */
  const current = useRef(key);
  current.current = key;
  const loaded = useRef(pages);
  loaded.current = pages;

  // A new query: start again from the first page.
  useEffect(() => {
    loading.current = new Set();
    setPages(new Map());
    setTotal(undefined);
    setError('');
    setText(query.text ?? '');
    load(0, true);
  }, [key]);

  // New episodes: the pages on hand are fetched again and replaced as they arrive (no flicker).
  const firstVersion = useRef(props.version);
  useEffect(() => {
    if (props.version === firstVersion.current) return;
    loading.current = new Set();
    const held = [...loaded.current.keys()];
    for (const page of held.length > 0 ? held : [0]) load(page);
  }, [props.version]);

  useEffect(() => {
    const element = scroller.current;
    if (!element) return undefined;
    const resize = () => setHeight(element.clientHeight || 600);
    resize();
    window.addEventListener('resize', resize);
    return () => window.removeEventListener('resize', resize);
  }, []);

  function load(page: number, first = false): void {
    if (loading.current.has(page)) return;
    loading.current.add(page);
    const started = key;
    fetchEpisodes(run.id, query, page * PAGE, PAGE)
      .then((result) => {
        if (started !== current.current) return;
        setTotal(result.total);
        setGroups(result.groups);
        setPages((old) => new Map(first ? [] : old).set(page, result.rows));
        markFirstRender();
      })
      .catch((reason: Error) => setError(reason.message));
  }

  const count = total ?? 0;
  const firstRow = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
  const lastRow = Math.min(count, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
  useEffect(() => {
    for (let page = Math.floor(firstRow / PAGE); page * PAGE < lastRow; page += 1) {
      if (!pages.has(page)) load(page);
    }
  }, [firstRow, lastRow, pages]);

  const visible = useMemo(() => {
    const rows: { position: number; row: EpisodeRow | undefined }[] = [];
    for (let position = firstRow; position < lastRow; position += 1) {
      rows.push({ position, row: pages.get(Math.floor(position / PAGE))?.[position % PAGE] });
    }
    return rows;
  }, [firstRow, lastRow, pages]);

  // The query of the latest render: a search applied after a pause must not bring back an older one.
  const latestQuery = useRef(query);
  latestQuery.current = query;
  const set = (change: Partial<EpisodeQuery>) => {
    const next: Record<string, unknown> = { ...latestQuery.current, ...change };
    for (const name of Object.keys(next))
      if (next[name] === undefined || next[name] === '') delete next[name];
    props.onQuery(next as EpisodeQuery);
  };

  // Text search applies on Enter, or once typing stops for a moment.
  useEffect(() => {
    if (text === (query.text ?? '')) return undefined;
    const timer = setTimeout(() => {
      if (text !== (latestQuery.current.text ?? '')) set({ text: text || undefined });
    }, 400);
    return () => clearTimeout(timer);
  }, [text]);

  return (
    <section class="episodes">
      <div class="filters">
        <select
          data-testid="filter-status"
          value={query.status ?? ''}
          onChange={(event) =>
            set({ status: (event.currentTarget.value || undefined) as EpisodeQuery['status'] })
          }
        >
          <option value="">all outcomes</option>
          <option value="solved">solved</option>
          <option value="failed">failed</option>
          <option value="error">failed to play</option>
          <option value="truncated">truncated</option>
        </select>
        <select
          data-testid="filter-group"
          value={query.group ?? ''}
          onChange={(event) => set({ group: event.currentTarget.value || undefined })}
        >
          <option value="">all groups</option>
          {groups.map((group) => (
            <option key={group} value={group}>
              {group}
            </option>
          ))}
        </select>
        <input
          data-testid="filter-text"
          type="search"
          placeholder="search query, actions, observations"
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') set({ text: text || undefined });
          }}
        />
        <select
          data-testid="filter-sort"
          value={query.sort ?? 'id'}
          onChange={(event) => set({ sort: event.currentTarget.value as SortKey })}
        >
          {SORTS.map(([value, label]) => (
            <option key={value} value={value}>
              sort: {label}
            </option>
          ))}
        </select>
        <label>
          <input
            data-testid="filter-desc"
            type="checkbox"
            checked={query.descending === true}
            onChange={(event) => set({ descending: event.currentTarget.checked || undefined })}
          />{' '}
          descending
        </label>
        {props.runs.length > 1 ? (
          <select
            data-testid="filter-versus"
            value={query.versus === undefined ? '' : String(query.versus)}
            onChange={(event) => {
              const value = event.currentTarget.value;
              set({ versus: value === '' ? undefined : Number(value) });
            }}
          >
            <option value="">no comparison</option>
            {props.runs
              .filter((other) => other.id !== run.id)
              .map((other) => (
                <option key={other.id} value={String(other.id)}>
                  disagrees with {other.name}
                </option>
              ))}
          </select>
        ) : null}
        <span class="total" data-testid="episode-total">
          {total === undefined ? 'loading…' : `${count.toLocaleString('en')} episodes`}
        </span>
      </div>
      {error ? <div class="error">{error}</div> : null}
      <div
        class="list"
        data-testid="episode-list"
        ref={scroller}
        onScroll={(event) => setTop(event.currentTarget.scrollTop)}
      >
        <div class="list-space" style={{ height: `${count * ROW_HEIGHT}px` }}>
          {visible.map(({ position, row }) => {
            const style = { top: `${position * ROW_HEIGHT}px`, height: `${ROW_HEIGHT}px` };
            return row ? (
              <a
                key={position}
                class={`row ${row.status}`}
                style={style}
                data-testid="episode-row"
                data-id={String(row.id)}
                href={routeHash({ page: 'episode', run: run.id, episode: row.id, query })}
              >
                <RowCells row={row} />
              </a>
            ) : (
              <div key={position} class="row loading" style={style}>
                …
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}

function RowCells(props: { row: EpisodeRow }) {
  const { row } = props;
  return (
    <>
      <span class="cell id">{row.id}</span>
      <span class="cell task">
        {row.taskId}
        {row.sample > 0 ? ` #${row.sample}` : ''}
      </span>
      <span class="cell group">{row.group}</span>
      <span class={`cell status ${row.status}`}>{row.status}</span>
      <span class="cell reward">{row.reward.toFixed(2)}</span>
      <span class="cell turns">{row.turns} turns</span>
      <span class="cell tokens">{row.tokens > 0 ? `${row.tokens.toLocaleString('en')} tok` : ''}</span>
      <span class="cell cost">{row.tokens > 0 ? cost(row.costUsd) : ''}</span>
      <span class="cell duration">{duration(row.durationMs)}</span>
      <span class="cell query" title={row.query}>
        {row.goldCorrupt ? '⚠ gold failed · ' : ''}
        {row.query}
      </span>
    </>
  );
}
