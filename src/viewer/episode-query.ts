import { UsageError } from '../core/errors.js';
import type { IndexedEpisode, RunIndex } from './run-index.js';
import {
  type EpisodeNeighbours,
  type EpisodePage,
  type EpisodeQuery,
  type EpisodeRow,
  type EpisodeStatus,
  SORT_KEYS,
  type SortKey,
} from './viewer-api.js';

const STATUSES: readonly EpisodeStatus[] = ['solved', 'failed', 'error', 'truncated'];
/** The most rows a page holds. */
export const MAX_PAGE = 1_000;

/** Reads an episode query from URL parameters; a bad value is a `UsageError` naming it. */
export function parseEpisodeQuery(params: URLSearchParams): EpisodeQuery {
  const integer = (name: string, min: number): number | undefined => {
    const value = params.get(name);
    if (value === null || value === '') return undefined;
    const number = Number(value);
    if (!Number.isSafeInteger(number) || number < min) {
      throw new UsageError(`parameter ${name} must be an integer ≥ ${min}, got ${JSON.stringify(value)}`);
    }
    return number;
  };
  const status = params.get('status') || undefined;
  if (status !== undefined && !STATUSES.includes(status as EpisodeStatus)) {
    throw new UsageError(
      `parameter status must be one of ${STATUSES.join(', ')}, got ${JSON.stringify(status)}`,
    );
  }
  const sort = params.get('sort') || undefined;
  if (sort !== undefined && !SORT_KEYS.includes(sort as SortKey)) {
    throw new UsageError(
      `parameter sort must be one of ${SORT_KEYS.join(', ')}, got ${JSON.stringify(sort)}`,
    );
  }
  const group = params.get('group') || undefined;
  const text = params.get('q') || undefined;
  const versus = integer('versus', 0);
  const offset = integer('offset', 0);
  const limit = integer('limit', 1);
  return {
    ...(status !== undefined ? { status: status as EpisodeStatus } : {}),
    ...(group !== undefined ? { group } : {}),
    ...(text !== undefined ? { text } : {}),
    ...(sort !== undefined ? { sort: sort as SortKey } : {}),
    ...(params.get('desc') === '1' ? { descending: true } : {}),
    ...(versus !== undefined ? { versus } : {}),
    ...(offset !== undefined ? { offset } : {}),
    ...(limit !== undefined ? { limit: Math.min(limit, MAX_PAGE) } : {}),
  };
}

/** The outcome two runs are compared on: solved or not (an episode that failed to play has none). */
function outcome(row: EpisodeRow): boolean | undefined {
  return row.status === 'error' ? undefined : row.status === 'solved';
}

/** Task ids in natural order (`task-2` before `task-10`); one collator, not one per comparison. */
const TASK_ORDER = new Intl.Collator('en', { numeric: true });

function compareRows(key: SortKey): (a: EpisodeRow, b: EpisodeRow) => number {
  if (key === 'taskId') return (a, b) => TASK_ORDER.compare(a.taskId, b.taskId) || a.sample - b.sample;
  return (a, b) => (a[key] ?? 0) - (b[key] ?? 0) || a.id - b.id;
}

/**
 * A page of a run's episodes: filtered by status, group, disagreement with another run (same task
 * and sample, solved in one and not the other) and text, sorted, cut to `offset`/`limit`. The text
 * search reads the file once per text (`RunIndex.matching` keeps the answer).
 */
export function queryEpisodes(run: RunIndex, query: EpisodeQuery, other?: RunIndex): EpisodePage {
  const { rows, groups } = matchingRows(run, query, other);
  const offset = Math.min(query.offset ?? 0, rows.length);
  const limit = query.limit ?? 200;
  return { total: rows.length, offset, rows: rows.slice(offset, offset + limit), groups };
}

/** Where an episode is in a filtered list: its neighbours' ids (for the page's next and previous). */
export function episodeNeighbours(
  run: RunIndex,
  query: EpisodeQuery,
  episode: number,
  other?: RunIndex,
): EpisodeNeighbours {
  const { rows } = matchingRows(run, query, other);
  const position = rows.findIndex((row) => row.id === episode);
  if (position === -1) return { position: null, total: rows.length, previous: null, next: null };
  return {
    position,
    total: rows.length,
    previous: rows[position - 1]?.id ?? null,
    next: rows[position + 1]?.id ?? null,
  };
}

function matchingRows(
  run: RunIndex,
  query: EpisodeQuery,
  other: RunIndex | undefined,
): { rows: EpisodeRow[]; groups: string[] } {
  let entries: readonly IndexedEpisode[] = run.episodes;
  const groups = [...new Set(entries.map((entry) => entry.row.group))].sort();
  if (query.status) entries = entries.filter((entry) => entry.row.status === query.status);
  if (query.group !== undefined) entries = entries.filter((entry) => entry.row.group === query.group);
  if (other) {
    const theirs = new Map(
      other.episodes.map((entry) => [`${entry.row.taskId}#${entry.row.sample}`, outcome(entry.row)]),
    );
    entries = entries.filter((entry) => {
      const mine = outcome(entry.row);
      const their = theirs.get(`${entry.row.taskId}#${entry.row.sample}`);
      return mine !== undefined && their !== undefined && mine !== their;
    });
  }
  if (query.text !== undefined) {
    const found = run.matching(query.text);
    entries = entries.filter((entry) => found.has(entry.row.id));
  }
  let rows = entries.map((entry) => entry.row);
  if (query.sort !== undefined && query.sort !== 'id') rows = [...rows].sort(compareRows(query.sort));
  if (query.descending) rows = [...rows].reverse();
  return { rows, groups };
}
