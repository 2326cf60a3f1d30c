import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { EpisodePage, RunsResponse } from '../../src/viewer/viewer-api.js';

// Reading the viewer's page and its API in the browser tests. The page's elements are found by
// their `data-testid` (docs/cli/view.md lists them); the API is what the page's figures must match.

/**
 * `expect.poll` with room for a loaded machine: a bound on waiting for the page, not a performance
 * limit (the test fails only if the page never gets there).
 */
export function poll<T>(read: () => T | Promise<T>, message?: string) {
  return expect.poll(read, { timeout: 15_000, interval: 50, ...(message ? { message } : {}) });
}

/** An element by its `data-testid`. */
export function byTestId(page: Page | Locator, id: string): Locator {
  return page.locator(`[data-testid="${id}"]`);
}

/** GETs a JSON path of the viewer's API (`api/runs/0/episodes?status=failed`). */
export async function api<T>(viewerUrl: string, path: string): Promise<T> {
  const response = await fetch(new URL(path, viewerUrl));
  expect(response.status, `GET ${path}`).toBe(200);
  return (await response.json()) as T;
}

/** The number of episodes the API counts for a list's filters (`status=failed&group=easy`). */
export async function apiTotal(viewerUrl: string, runId: number, filters = ''): Promise<number> {
  const page = await api<EpisodePage>(viewerUrl, `api/runs/${runId}/episodes?${filters}`);
  return page.total;
}

/** The runs the API reports. */
export async function apiRuns(viewerUrl: string): Promise<RunsResponse['runs']> {
  return (await api<RunsResponse>(viewerUrl, 'api/runs')).runs;
}

/** The number the list's `episode-total` starts with (`"41 episodes"` → 41); NaN when it shows none. */
export async function shownTotal(page: Page): Promise<number> {
  const text = (await byTestId(page, 'episode-total').textContent()) ?? '';
  const match = /^\s*([\d,\s]+)/.exec(text);
  return match ? Number(match[1]!.replace(/[,\s]/g, '')) : Number.NaN;
}

/** Waits until the list shows `total` matching episodes. */
export async function expectShownTotal(page: Page, total: number): Promise<void> {
  await poll(() => shownTotal(page), 'the total the list shows').toBe(total);
}

/** The `data-id`s of the list's rows in the DOM, in order. */
export async function rowIds(page: Page): Promise<number[]> {
  const ids = await byTestId(page, 'episode-row').evaluateAll((rows) =>
    rows.map((row) => Number(row.getAttribute('data-id'))),
  );
  return ids;
}

/**
 * The text of the runs table's cell in the column of run `runId` (its header cell `run-column-<id>`)
 * and the row whose first cell matches `label`.
 */
export async function runsTableCell(page: Page, runId: number, label: RegExp): Promise<string> {
  const table = byTestId(page, 'runs-table');
  return table.evaluate(
    (element, { id, source, flags }) => {
      const root = element as unknown as TableElement;
      const header = root.querySelector(`[data-testid="run-column-${id}"]`);
      if (header === null || typeof header.cellIndex !== 'number') return `no header cell run-column-${id}`;
      const pattern = new RegExp(source, flags);
      const rows = Array.from(root.querySelectorAll('tr'));
      const row = rows.find((tr) => pattern.test(tr.cells[0]?.textContent ?? ''));
      if (row === undefined) return `no row ${source}`;
      return row.cells[header.cellIndex]?.textContent ?? `no cell ${header.cellIndex}`;
    },
    { id: runId, source: label.source, flags: label.flags },
  );
}

// The few DOM members the functions run in the page use (the tests compile without the DOM library).
interface TableElement {
  querySelector(selector: string): { cellIndex?: number } | null;
  querySelectorAll(selector: string): ArrayLike<{ cells: ArrayLike<{ textContent: string | null }> }>;
}
interface CanvasElement {
  width: number;
  height: number;
  getContext(
    kind: '2d',
  ): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
}

/**
 * What a canvas holds: pixels that are not transparent, and among them the coloured ones (axes, grid
 * and text are greys; a plot's series are drawn in colour), counted by their strongest channel.
 */
export interface CanvasInk {
  readonly width: number;
  readonly height: number;
  readonly inked: number;
  /** Coloured pixels whose strongest channel is red, green, blue. */
  readonly coloured: readonly [number, number, number];
}

/** Reads the pixels of the (first) canvas in `container`. */
export async function canvasInk(container: Locator): Promise<CanvasInk> {
  return container
    .locator('canvas')
    .first()
    .evaluate((element): CanvasInk => {
      const canvas = element as unknown as CanvasElement;
      const coloured: [number, number, number] = [0, 0, 0];
      const context = canvas.getContext('2d');
      if (context === null) return { width: canvas.width, height: canvas.height, inked: 0, coloured };
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      let inked = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] === 0) continue;
        inked += 1;
        const rgb = [data[i]!, data[i + 1]!, data[i + 2]!];
        const high = Math.max(...rgb);
        if (high - Math.min(...rgb) < 60) continue;
        const channel = rgb.indexOf(high) as 0 | 1 | 2;
        coloured[channel] += 1;
      }
      return { width: canvas.width, height: canvas.height, inked, coloured };
    });
}

/**
 * Checks that the plot in `container` is drawn: its canvas holds coloured pixels (a series, not
 * only axes), in at least `series` different hues when several runs are plotted.
 */
export async function expectPlotDrawn(container: Locator, series = 1): Promise<void> {
  await container.locator('canvas').first().waitFor();
  const hues = (ink: CanvasInk) => ink.coloured.filter((count) => count >= 20).length;
  await poll(
    async () => hues(await canvasInk(container)),
    'coloured series on the canvas',
  ).toBeGreaterThanOrEqual(series);
  const ink = await canvasInk(container);
  expect(ink.width * ink.height).toBeGreaterThan(0);
  expect(ink.inked).toBeGreaterThan(200);
}

/** The index of the turn marked `current`, or -1. */
export async function currentTurn(page: Page): Promise<number> {
  const current = page.locator('[data-testid="turn"].current');
  if ((await current.count()) !== 1) return -1;
  return Number(await current.getAttribute('data-turn'));
}

/** The page's address part after `#`. */
export function hashOf(page: Page): string {
  return new URL(page.url()).hash;
}
