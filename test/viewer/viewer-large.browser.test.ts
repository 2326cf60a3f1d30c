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

const TITLE = 'intercode view on 10,340 episodes in headless Chromium';
const noChromium = chromiumMissing();

if (noChromium) describeMissing(TITLE, noChromium);
else
  describe(TITLE, () => {
    let big: string;
    it.beforeAll(({ cli, fileTempDir }) => {
      big = playBigRun(cli, fileTempDir('viewer-large'));
    }, 600_000);

    it('renders the runs table and the first episode rows; the time it took is printed', async ({
      view,
      viewerPage: { page },
      screenshot,
    }) => {
      const viewer = await view([big]);
      const [run] = await apiRuns(viewer.url);
      expect(run!.episodes).toBe(BIG_RUN_EPISODES);

      // The runs page first (the table), then the list (the first rows), each from its navigation.
      const runsStarted = performance.now();
      await page.goto(viewer.url);
      await byTestId(page, 'runs-table').waitFor();
      const runsMs = performance.now() - runsStarted;
      const runsPageMark = await page.evaluate(
        () => (globalThis as { __intercodeFirstRender?: number }).__intercodeFirstRender,
      );

      await page.goto('about:blank');
      const listStarted = performance.now();
      await page.goto(`${viewer.url}#/runs/0/episodes`);
      await byTestId(page, 'episode-row').first().waitFor();
      const listMs = performance.now() - listStarted;
      const listPageMark = await page.evaluate(
        () => (globalThis as { __intercodeFirstRender?: number }).__intercodeFirstRender,
      );
      expect(typeof runsPageMark).toBe('number');
      expect(typeof listPageMark).toBe('number');
      console.log(
        `[viewer] first render of ${BIG_RUN_EPISODES.toLocaleString('en-US')} episodes: runs table ${runsMs.toFixed(0)} ms ` +
          `(page's mark ${runsPageMark?.toFixed(0)} ms), first episode rows ${listMs.toFixed(0)} ms ` +
          `(page's mark ${listPageMark?.toFixed(0)} ms), from page.goto (headless Chromium, shared 2-core machine)`,
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
