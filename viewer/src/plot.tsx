import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

/** Colours of the runs, in order (a run keeps its colour in every plot). */
export const RUN_COLOURS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#9467bd',
  '#ff7f0e',
  '#8c564b',
  '#e377c2',
  '#17becf',
];

export function runColour(index: number): string {
  return RUN_COLOURS[index % RUN_COLOURS.length] ?? '#333';
}

export interface PlotSeries {
  readonly label: string;
  readonly values: readonly (number | null)[];
  readonly colour: string;
}

export interface PlotProps {
  readonly testId: string;
  readonly title: string;
  /** The x values (turns, bins, group positions). */
  readonly x: readonly number[];
  readonly series: readonly PlotSeries[];
  /** Bars instead of lines (grouped per x when there are several series). */
  readonly bars?: boolean;
  /** Names of x positions, drawn on the axis at those positions (groups, reward bins). */
  readonly xNames?: ReadonlyMap<number, string>;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly yMax?: number;
}

/** A uPlot chart drawn on a canvas, redrawn when its data changes. */
export function Plot(props: PlotProps) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current;
    if (!element) return undefined;
    const bars = props.bars === true;
    const barPaths = uPlot.paths.bars?.({ size: [0.9, 80], align: 0 });
    const names = props.xNames;
    const options: uPlot.Options = {
      width: Math.max(480, Math.min(element.clientWidth || 560, 760)),
      height: 240,
      title: props.title,
      scales: {
        x: {
          time: false,
          ...(bars ? { range: [props.x[0]! - 0.6, props.x[props.x.length - 1]! + 0.6] } : {}),
        },
        y: {
          range: (_u: uPlot, _min: number, max: number): uPlot.Range.MinMax => [
            0,
            props.yMax ?? Math.max(1, max * 1.1),
          ],
        },
      },
      axes: [
        {
          label: props.xLabel,
          ...(names
            ? { values: (_u: uPlot, splits: number[]) => splits.map((split) => names.get(split) ?? '') }
            : {}),
          ...(names ? { splits: () => [...names.keys()] } : {}),
        },
        { label: props.yLabel },
      ],
      legend: { show: true },
      series: [
        { label: props.xLabel },
        ...props.series.map((series) => ({
          label: series.label,
          stroke: series.colour,
          fill: bars ? `${series.colour}aa` : undefined,
          width: bars ? 1 : 2,
          ...(bars && barPaths ? { paths: barPaths, points: { show: false } } : {}),
        })),
      ],
    };
    const data = [props.x as number[], ...props.series.map((series) => series.values as (number | null)[])];
    const chart = new uPlot(options, data as uPlot.AlignedData, element);
    return () => chart.destroy();
  }, [props]);
  return <div class="plot" data-testid={props.testId} ref={holder} />;
}

/**
 * Grouped bars on one x axis: each group takes a slot per series and a gap, each series has values
 * only at its own slots; the group's name sits at the middle of its slots.
 */
export function groupedBars(
  groups: readonly string[],
  series: readonly { label: string; colour: string; values: readonly number[] }[],
): Pick<PlotProps, 'x' | 'series' | 'xNames'> {
  const width = series.length + 1;
  const x = Array.from({ length: groups.length * width }, (_, index) => index);
  const xNames = new Map(
    groups.map((group, index) => [index * width + (series.length - 1) / 2, group] as const),
  );
  return {
    x,
    xNames,
    series: series.map((one, s) => ({
      label: one.label,
      colour: one.colour,
      values: x.map((position) =>
        position % width === s ? (one.values[Math.floor(position / width)] ?? null) : null,
      ),
    })),
  };
}
