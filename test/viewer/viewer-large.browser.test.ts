import type { Locator, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { chromiumMissing } from '../support/missing-components.js';
import { describeMissing } from '../support/skip-if-missing.js';
import { it } from './viewer-browser-fixtures.js';
import { apiRuns, apiTotal, byTestId, expectShownTotal, poll, rowIds } from './viewer-page.js';
import { BIG_RUN_EPISODES, playBigRun } from './viewer-runs.js';

// A run of 10,340 episodes (spider/dev × 10 samples, gold agent, SQLite, written by the CLI) in headless
// Chromium: the time to first render is measured and printed (a figure for docs/benchmarks.md, never
// a limit here: the project's tests have no time limits), and the list is virtualised: scrolled to
// its end it shows the last rows while the DOM holds a small part of them.

/** Page loads measured for each view. */
const SAMPLES = 5;

/** A page load: ms from `page.goto` until the element showed, and the page's own mark. */
interface Render {
  readonly ms: number;
  /** `window.__intercodeFirstRender`: ms from the navigation's start to the first frame with data. */
  readonly mark: number;
}

/** The page's first-render mark (`window.__intercodeFirstRender`), read in the page. */
const readMark = () => (globalThis as { __intercodeFirstRender?: number }).__intercodeFirstRender;

/** Loads `url` from a blank page and waits for `shown`. */
async function firstRender(page: Page, url: string, shown: Locator): Promise<Render> {
  await page.goto('about:blank');
  const started = performance.now();
  await page.goto(url);
  await shown.waitFor();
  const ms = performance.now() - started;
  await poll(() => page.evaluate(readMark), "the page's first-render mark").toBeTypeOf('number');
  const mark = (await page.evaluate(readMark))!;
  return { ms, mark };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** `p50 N ms (min–max), page mark p50 N ms; samples a, b, c` */
function describeSamples(renders: readonly Render[]): string {
  const ms = renders.map((render) => render.ms);
  const marks = renders.map((render) => render.mark);
  return (
    `p50 ${median(ms).toFixed(0)} ms (${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)}), ` +
    `page mark p50 ${median(marks).toFixed(0)} ms; samples ${ms.map((value) => value.toFixed(0)).join(', ')} ms`
  );
}

const TITLE = 'intercode view on 10,340 episodes in headless Chromium';
const noChromium = chromiumMissing();

// The suite's timeout is a bound for a hung test only, generous for a loaded machine (two files at once on
// 2 cores); nothing here is timed against a limit.
if (noChromium) describeMissing(TITLE, noChromium);
else
  describe(TITLE, { timeout: 180_000 }, () => {
    let big: string;
    it.beforeAll(({ cli, fileTempDir }) => {
      big = playBigRun(cli, fileTempDir('viewer-large'));
    }, 600_000);

    it('renders the runs table and the first episode rows; the time it took is printed', async ({
      view,
      viewerPage: { page },
      screenshot,
    }) => {
      // The server indexes episodes.jsonl before it listens.
      const indexStarted = performance.now();
      const viewer = await view([big]);
      const indexMs = performance.now() - indexStarted;
      const [run] = await apiRuns(viewer.url);
      expect(run!.episodes).toBe(BIG_RUN_EPISODES);

      // From a blank page: the runs page (its table), then the list (its first rows), several times
      // (the first of each is the viewer's first answer for this run; the machine is shared: spread).
      const runsPage: Render[] = [];
      const listPage: Render[] = [];
      for (let sample = 0; sample < SAMPLES; sample += 1) {
        runsPage.push(await firstRender(page, viewer.url, byTestId(page, 'runs-table')));
        listPage.push(
          await firstRender(page, `${viewer.url}#/runs/0/episodes`, byTestId(page, 'episode-row').first()),
        );
      }
      console.log(
        `[viewer] first render of ${BIG_RUN_EPISODES.toLocaleString('en-US')} episodes, from page.goto, ${SAMPLES} samples ` +
          `(headless Chromium, shared 2-core machine): runs table ${describeSamples(runsPage)}; ` +
          `first episode rows ${describeSamples(listPage)}; the server's index of the run ${indexMs.toFixed(0)} ms`,
      );
      await expectShownTotal(page, BIG_RUN_EPISODES);
      await screenshot('list-10340', page);
    });

    it('scrolls the virtualised list to its end: the last rows render, the DOM holds few rows', async ({
      view,
      viewerPage: { page },
    }) => {
      const viewer = await view([big]);
      await page.goto(`${viewer.url}#/runs/0/episodes`);
      await byTestId(page, 'episode-row').first().waitFor();
      await expectShownTotal(page, BIG_RUN_EPISODES);
      expect((await rowIds(page)).length).toBeLessThan(500);

      const list = byTestId(page, 'episode-list');
      // Scrolled to the end until the last row is there (a list may fetch rows as they come into view).
      await poll(async () => {
        await list.evaluate((element) => {
          const box = element as unknown as { scrollTop: number; scrollHeight: number };
          box.scrollTop = box.scrollHeight;
        });
        return (await rowIds(page)).includes(BIG_RUN_EPISODES - 1);
      }, 'the last row, scrolled to the end').toBe(true);
      const ids = await rowIds(page);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.length).toBeLessThan(500);
      expect(Math.min(...ids)).toBeGreaterThan(BIG_RUN_EPISODES - 1_000);
      const lastRow = page.locator(`[data-testid="episode-row"][data-id="${BIG_RUN_EPISODES - 1}"]`);
      expect(await lastRow.isVisible()).toBe(true);
      expect(await apiTotal(viewer.url, 0, 'status=solved')).toBe(BIG_RUN_EPISODES);
    });
  });
