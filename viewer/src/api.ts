import type { ChatMessageData } from '../../src/core/run-files/episode-record-schema.js';
import type { EpisodeRecord } from '../../src/harness/episode-record.js';
import type { EpisodePage, EpisodeQuery, RunInfo, RunsResponse } from '../../src/viewer/viewer-api.js';

export type { EpisodePage, EpisodeQuery, RunInfo };

/** An episode as the server sends it: the record and the shared prompt prefixes its model calls name. */
export interface EpisodeResponse {
  readonly record: EpisodeRecord;
  readonly prefixes: Readonly<Record<string, readonly ChatMessageData[]>>;
}

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  const body = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(body.error ?? `${path}: HTTP ${response.status}`);
  return body;
}

export function fetchRuns(): Promise<RunsResponse> {
  return getJson('/api/runs');
}

/** The URL parameters of an episode query (the page's and the API's are the same). */
export function queryParams(query: EpisodeQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.status) params.set('status', query.status);
  if (query.group !== undefined) params.set('group', query.group);
  if (query.text) params.set('q', query.text);
  if (query.sort && query.sort !== 'id') params.set('sort', query.sort);
  if (query.descending) params.set('desc', '1');
  if (query.versus !== undefined) params.set('versus', String(query.versus));
  return params;
}

export function fetchEpisodes(
  run: number,
  query: EpisodeQuery,
  offset: number,
  limit: number,
): Promise<EpisodePage> {
  const params = queryParams(query);
  params.set('offset', String(offset));
  params.set('limit', String(limit));
  return getJson(`/api/runs/${run}/episodes?${params}`);
}

export function fetchEpisode(run: number, id: number): Promise<EpisodeResponse> {
  return getJson(`/api/runs/${run}/episodes/${id}`);
}

export function fetchNeighbours(
  run: number,
  query: EpisodeQuery,
  episode: number,
): Promise<import('../../src/viewer/viewer-api.js').EpisodeNeighbours> {
  return getJson(`/api/runs/${run}/neighbours/${episode}?${queryParams(query)}`);
}
