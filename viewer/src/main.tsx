import 'uplot/dist/uPlot.min.css';
import './viewer.css';
import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { EpisodeQuery, RunInfo } from '../../src/viewer/viewer-api.js';
import { fetchRuns } from './api.js';
import { EpisodeList } from './episode-list.js';
import { EpisodeView } from './episode-view.js';
import { markFirstRender } from './first-render.js';
import { parseRoute, type Route, routeHash } from './route.js';
import { RunLine, RunsView } from './runs-view.js';

function useRoute(): [Route, (route: Route) => void] {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  const go = useCallback((next: Route) => {
    location.hash = routeHash(next);
  }, []);
  return [route, go];
}

/** The viewer: the runs page, a run's episode list, one episode; live while runs are written. */
function App() {
  const [route, go] = useRoute();
  const [runs, setRuns] = useState<readonly RunInfo[] | undefined>(undefined);
  const [error, setError] = useState('');

  useEffect(() => {
    const load = () =>
      fetchRuns()
        .then((response) => setRuns(response.runs))
        .catch((reason: Error) => setError(reason.message));
    load();
    // The server says when a run's files grew; the page then fetches the runs (and its list) again.
    const events = new EventSource('/api/events');
    let first = true;
    events.onmessage = () => {
      if (first) first = false;
      else load();
    };
    return () => events.close();
  }, []);

  useEffect(() => {
    if (runs && route.page === 'runs') markFirstRender();
  }, [runs, route.page]);

  if (error) return <div class="error">The viewer's server did not answer: {error}</div>;
  if (!runs) return <div class="loading">loading runs…</div>;
  const run = route.page === 'runs' ? undefined : runs[route.run];
  const openList = (query: EpisodeQuery) => run && go({ page: 'list', run: run.id, query });
  return (
    <>
      <header class="top">
        <a href="#/" data-testid="nav-runs">
          intercode view
        </a>
        {runs.map((one) => (
          <a key={one.id} href={`#/runs/${one.id}/episodes`} class={run?.id === one.id ? 'active' : ''}>
            {one.name}
          </a>
        ))}
      </header>
      <main>
        {route.page === 'runs' || !run ? (
          <RunsView runs={runs} links />
        ) : route.page === 'list' ? (
          <>
            <RunLine run={run} />
            <EpisodeList runs={runs} run={run} query={route.query} version={run.version} onQuery={openList} />
          </>
        ) : (
          <EpisodeView
            run={run.id}
            episode={route.episode}
            query={route.query}
            onOpen={(episode) => go({ page: 'episode', run: run.id, episode, query: route.query })}
            onBack={() => openList(route.query)}
          />
        )}
      </main>
    </>
  );
}

/** The runs embedded in a report file (`intercode report --format html`), if this page is one. */
function embeddedRuns(): readonly RunInfo[] | undefined {
  const element = document.getElementById('intercode-report-data');
  return element?.textContent ? (JSON.parse(element.textContent) as RunInfo[]) : undefined;
}

const root = document.getElementById('app');
if (root) {
  const embedded = embeddedRuns();
  render(embedded ? <RunsView runs={embedded} links={false} /> : <App />, root);
}
