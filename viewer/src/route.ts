import {
  type EpisodeQuery,
  type EpisodeStatus,
  SORT_KEYS,
  type SortKey,
} from '../../src/viewer/viewer-api.js';
import { queryParams } from './api.js';

/** Where the page is: the runs, a run's episode list, or one episode (with the list it came from). */
export type Route =
  | { readonly page: 'runs' }
  | { readonly page: 'list'; readonly run: number; readonly query: EpisodeQuery }
  | {
      readonly page: 'episode';
      readonly run: number;
      readonly episode: number;
      readonly query: EpisodeQuery;
    };

const STATUSES: readonly string[] = ['solved', 'failed', 'error', 'truncated'];

function parseQuery(search: string): EpisodeQuery {
  const params = new URLSearchParams(search);
  const status = params.get('status') ?? '';
  const sort = params.get('sort') ?? '';
  const versus = params.get('versus');
  const group = params.get('group');
  const text = params.get('q');
  return {
    ...(STATUSES.includes(status) ? { status: status as EpisodeStatus } : {}),
    ...(group !== null && group !== '' ? { group } : {}),
    ...(text !== null && text !== '' ? { text } : {}),
    ...(SORT_KEYS.includes(sort as SortKey) ? { sort: sort as SortKey } : {}),
    ...(params.get('desc') === '1' ? { descending: true } : {}),
    ...(versus !== null && /^\d+$/.test(versus) ? { versus: Number(versus) } : {}),
  };
}

/** The route of a location hash: `#/`, `#/runs/<id>/episodes?…`, `#/runs/<id>/episodes/<episode>?…`. */
export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?', 2);
  const parts = path.split('/').filter((part) => part !== '');
  const run = Number(parts[1]);
  if (parts[0] === 'runs' && parts[2] === 'episodes' && Number.isSafeInteger(run)) {
    const query = parseQuery(search);
    const episode = Number(parts[3]);
    if (parts.length === 4 && Number.isSafeInteger(episode)) return { page: 'episode', run, episode, query };
    if (parts.length === 3) return { page: 'list', run, query };
  }
  return { page: 'runs' };
}

/** The hash of a route (the inverse of `parseRoute`). */
export function routeHash(route: Route): string {
  if (route.page === 'runs') return '#/';
  const params = queryParams(route.query).toString();
  const suffix = params ? `?${params}` : '';
  const base = `#/runs/${route.run}/episodes`;
  return route.page === 'list' ? `${base}${suffix}` : `${base}/${route.episode}${suffix}`;
}
