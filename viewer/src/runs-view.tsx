import type { Metrics } from '../../src/harness/metrics.js';
import type { RunInfo } from '../../src/viewer/viewer-api.js';
import { cost, number, percent } from './format.js';
import { groupedBars, Plot, runColour } from './plot.js';

interface Row {
  readonly label: string;
  readonly value: (metrics: Metrics) => string;
  /** The paper's metric this row is compared with. */
  readonly paper?: string;
}

const ROWS: readonly Row[] = [
  { label: 'episodes', value: (m) => number(m.n) },
  { label: 'success %', value: (m) => percent(m.successRate), paper: 'successRate' },
  {
    label: 'first-turn success %',
    value: (m) => percent(m.firstTurnSuccessRate),
    paper: 'firstTurnSuccessRate',
  },
  { label: 'mean reward', value: (m) => m.meanReward.toFixed(3) },
  { label: 'mean turns', value: (m) => m.meanTurns.toFixed(2), paper: 'meanTurns' },
  { label: 'error %', value: (m) => percent(m.errorRate), paper: 'errorRate' },
  { label: 'tokens', value: (m) => number(m.usage.input + m.usage.output) },
  { label: 'cost', value: (m) => cost(m.costUsd) },
  { label: 'failed to play', value: (m) => number(m.episodeErrors) },
];

/** The paper's figure for a row of a run's group, when the run's setting has one. */
function paperCell(run: RunInfo, group: string, metric: string | undefined) {
  if (!metric) return null;
  const figure = run.paper.find((one) => one.group === group && one.metric === metric);
  if (!figure) return null;
  const sign = figure.difference >= 0 ? '+' : '−';
  return (
    <span
      class="paper"
      title={`the paper: ${figure.source.table}, ${figure.source.row}, ${figure.source.column}`}
    >
      paper {figure.paper.toFixed(1)} ({sign}
      {Math.abs(figure.difference).toFixed(1)})
    </span>
  );
}

/** The runs side by side: figures (with the paper's), the plots, per-group success. */
export function RunsView(props: {
  runs: readonly RunInfo[];
  onOpen?: (run: number) => void;
  links: boolean;
}) {
  const { runs } = props;
  const groups = [...new Set(runs.flatMap((run) => Object.keys(run.byGroup)))].sort();
  const turns = Math.max(1, ...runs.map((run) => run.successByTurn.length));
  const x = Array.from({ length: turns }, (_, index) => index + 1);
  const bins = ['0–.1', '.1–.2', '.2–.3', '.3–.4', '.4–.5', '.5–.6', '.6–.7', '.7–.8', '.8–.9', '.9–1'];
  const runSeries = (values: (run: RunInfo) => readonly number[]) =>
    runs.map((run, index) => ({ label: run.name, colour: runColour(index), values: values(run) }));
  return (
    <section class="runs">
      <table class="figures" data-testid="runs-table">
        <thead>
          <tr>
            <th />
            {runs.map((run, index) => (
              <th key={run.id} data-testid={`run-column-${run.id}`} class="run-head">
                <span class="swatch" style={{ background: runColour(index) }} />
                {props.links ? (
                  <a href={`#/runs/${run.id}/episodes`} data-testid={`open-run-${run.id}`}>
                    {run.name}
                  </a>
                ) : (
                  run.name
                )}
                <div class="setting">{run.settingText}</div>
                {run.complete ? null : <div class="live">still running or stopped early</div>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {ROWS.map((row) => (
            <tr key={row.label}>
              <th>{row.label}</th>
              {runs.map((run) => (
                <td key={run.id}>
                  {row.value(run.overall)} {paperCell(run, 'all', row.paper)}
                </td>
              ))}
            </tr>
          ))}
          {groups.length > 1
            ? groups.map((group) => (
                <tr key={`group-${group}`} class="group-row">
                  <th>{group} success %</th>
                  {runs.map((run) => {
                    const metrics = run.byGroup[group];
                    return (
                      <td key={run.id}>
                        {metrics ? `${percent(metrics.successRate)} of ${metrics.n}` : '–'}{' '}
                        {paperCell(run, group, 'successRate')}
                      </td>
                    );
                  })}
                </tr>
              ))
            : null}
        </tbody>
      </table>
      {runs.map((run) =>
        run.skipped > 0 ? (
          <div class="skipped" key={`skipped-${run.id}`} data-testid={`skipped-${run.id}`}>
            {run.name}: {run.skipped} {run.skipped === 1 ? 'line' : 'lines'} skipped
            <ul>
              {run.skippedLines.map((line) => (
                <li key={line.line}>
                  line {line.line}: {line.reason}
                </li>
              ))}
            </ul>
          </div>
        ) : null,
      )}
      <div class="plots">
        <Plot
          testId="plot-success-by-turn"
          title="Success rate by turn"
          x={x}
          series={runSeries((run) =>
            x.map(
              (turn) => run.successByTurn[Math.min(turn, run.successByTurn.length) - 1]?.solvedPercent ?? 0,
            ),
          )}
          xLabel="turn"
          yLabel="solved %"
          yMax={100}
        />
        <Plot
          testId="plot-rewards"
          title="Reward distribution (best reward per episode)"
          bars
          {...groupedBars(
            bins,
            runSeries((run) => run.rewardBins),
          )}
          xLabel="reward"
          yLabel="episodes"
        />
        <Plot
          testId="plot-groups"
          title="Success rate by group"
          bars
          {...groupedBars(
            groups,
            runSeries((run) => groups.map((group) => 100 * (run.byGroup[group]?.successRate ?? 0))),
          )}
          xLabel="group"
          yLabel="success %"
          yMax={100}
        />
      </div>
    </section>
  );
}

/** One line of a run's figures, above its episode list. */
export function RunLine(props: { run: RunInfo }) {
  const { run } = props;
  const m = run.overall;
  return (
    <div class="run-line" data-testid="run-line">
      <strong>{run.name}</strong> · {run.settingText} · success {percent(m.successRate)} % of {number(m.n)} ·
      mean reward {m.meanReward.toFixed(3)} · mean turns {m.meanTurns.toFixed(2)}
      {m.episodeErrors > 0 ? ` · ${m.episodeErrors} failed to play` : ''}
      {run.skipped > 0 ? ` · ${run.skipped} lines skipped` : ''}
      {run.complete ? '' : ' · still running or stopped early'}
    </div>
  );
}
