import { describe, expect } from 'vitest';
import { chromiumMissing } from '../support/missing-components.js';
import { describeMissing } from '../support/skip-if-missing.js';
import { it } from './viewer-browser-fixtures.js';
import { apiRuns, byTestId, expectShownTotal, poll } from './viewer-page.js';
import { HOSTILE, type HostileRun, playDemoRuns, writeHostileRun } from './viewer-runs.js';

// A run directory from a stranger, in headless Chromium: markup, `javascript:` links and ANSI escapes
// in the query, actions, observations and gold render as text (no dialog, no element made of them),
// a 1 MB observation opens, and malformed lines (invalid JSON, a newer schema, missing fields, a torn
// last line) are skipped and counted on the page, never a blank page.

const TITLE = 'intercode view on a hostile run directory in headless Chromium';
const noChromium = chromiumMissing();

/** What the page's DOM holds that a hostile string could have made. */
interface Injected {
  readonly scripts: number;
  readonly images: number;
  readonly handlers: string[];
  readonly javascriptUrls: string[];
}

// The few DOM members read in the page (the tests compile without the DOM library).
interface DomNode {
  readonly tagName: string;
  readonly textContent: string | null;
  getAttributeNames(): string[];
  getAttribute(name: string): string | null;
}
interface PageGlobals {
  readonly document: { querySelectorAll(selector: string): ArrayLike<DomNode> };
}

// The suite's timeout is a bound for a hung test only, generous for a loaded machine (two files at once on
// 2 cores); nothing here is timed against a limit.
if (noChromium) describeMissing(TITLE, noChromium);
else
  describe(TITLE, { timeout: 180_000 }, () => {
    let hostile: HostileRun;
    let gold: string;
    it.beforeAll(({ cli, fileTempDir }) => {
      const dir = fileTempDir('viewer-hostile');
      gold = playDemoRuns(cli, dir).gold;
      hostile = writeHostileRun(gold, dir);
    }, 240_000);

    it('counts the skipped lines with their reasons on the runs page', async ({
      view,
      viewerPage: { page },
      screenshot,
    }) => {
      const viewer = await view([hostile.directory, gold]);
      const [run] = await apiRuns(viewer.url);
      expect(run!.episodes).toBe(hostile.episodes);
      expect(run!.skipped).toBe(hostile.skipped.length);

      await page.goto(viewer.url);
      await byTestId(page, 'runs-table').waitFor();
      const skipped = byTestId(page, 'skipped-0');
      await skipped.waitFor();
      const text = (await skipped.textContent()) ?? '';
      expect(text).toMatch(new RegExp(`\\b${hostile.skipped.length} lines skipped`));
      for (const reason of hostile.skipped) expect(text).toMatch(reason);
      // The clean run has none, and says nothing.
      expect(await byTestId(page, 'skipped-1').count()).toBe(0);
      await screenshot('runs-page-skipped-lines', page);
    });

    it('renders markup, javascript: links and ANSI escapes as text, and no dialog fires', async ({
      view,
      viewerPage: { page },
      screenshot,
    }) => {
      const viewer = await view([hostile.directory]);
      await page.goto(`${viewer.url}#/runs/0/episodes?q=hostile`);
      await byTestId(page, 'episode-list').waitFor();
      await expectShownTotal(page, 2);
      // The task id and query, with their markup, are the rows' text.
      await poll(() => byTestId(page, 'episode-list').textContent()).toContain(HOSTILE.script);

      await page.goto(`${viewer.url}#/runs/0/episodes/${hostile.scriptEpisode}`);
      await byTestId(page, 'episode-view').waitFor();
      expect(await byTestId(page, 'episode-query').textContent()).toContain(
        `${HOSTILE.script} ${HOSTILE.image} see ${HOSTILE.link}`,
      );
      await byTestId(page, 'turn-action').first().waitFor();
      expect(await byTestId(page, 'turn-action').first().textContent()).toContain(HOSTILE.script);
      expect(await byTestId(page, 'gold').textContent()).toContain(HOSTILE.image);
      // The script's text is on screen, as text.
      expect(await page.getByText(HOSTILE.script).first().isVisible()).toBe(true);

      const observation = (await byTestId(page, 'turn-observation').first().textContent()) ?? '';
      expect(observation).toContain(HOSTILE.image);
      expect(observation).toContain(HOSTILE.link);
      // The ANSI escape is not put on the page raw (an invisible control character), nor dropped: a marked
      // `\x1b` stands for ESC.
      expect(observation).not.toContain('\u001b');
      expect(observation).toContain('\\x1b[31mred\\x1b[0m');

      const injected = await page.evaluate((): Injected => {
        const all = Array.from((globalThis as unknown as PageGlobals).document.querySelectorAll('*'));
        const attributes = (node: DomNode) =>
          node.getAttributeNames().map((name) => [name, node.getAttribute(name) ?? '']);
        return {
          // The page's own scripts are files of its own; none holds a hostile string's code.
          scripts: all.filter((node) => node.tagName === 'SCRIPT' && /alert/.test(node.textContent ?? ''))
            .length,
          images: all.filter((node) => node.tagName === 'IMG' && node.getAttribute('src') === 'x').length,
          handlers: all.flatMap((node) => node.getAttributeNames().filter((name) => /^on/i.test(name))),
          javascriptUrls: all.flatMap((node) =>
            attributes(node).flatMap(([name, value]) =>
              /^\s*javascript:/i.test(value!) ? [`${name}=${value}`] : [],
            ),
          ),
        };
      });
      expect(injected).toEqual({ scripts: 0, images: 0, handlers: [], javascriptUrls: [] });
      await screenshot('episode-hostile', page);
    });

    it('opens the episode with a 1 MB observation and stays responsive', async ({
      view,
      viewerPage: { page },
      screenshot,
    }) => {
      const viewer = await view([hostile.directory]);
      await page.goto(`${viewer.url}#/runs/0/episodes?q=hostile`);
      await byTestId(page, 'episode-list').waitFor();
      await page.goto(`${viewer.url}#/runs/0/episodes/${hostile.largeEpisode}?q=hostile`);
      await byTestId(page, 'episode-view').waitFor();
      await byTestId(page, 'turn-observation').first().waitFor();
      expect(await byTestId(page, 'episode-query').textContent()).toContain('1 MB');
      const shown = (await byTestId(page, 'turn-observation').first().textContent()) ?? '';
      expect(shown).toMatch(/^x{1000}/);
      // Still answers keys: back to the list.
      await page.keyboard.press('Escape');
      await byTestId(page, 'episode-list').waitFor();
      await expectShownTotal(page, 2);
      await screenshot('list-after-large-observation', page);
    });
  });
