import { describe, expect } from 'vitest';
import { bwrapMissing, chromiumMissing } from '../support/missing-components.js';
import { describeMissing } from '../support/skip-if-missing.js';
import { it } from './viewer-browser-fixtures.js';
import {
  apiRuns,
  apiTotal,
  byTestId,
  currentTurn,
  expectPlotDrawn,
  expectShownTotal,
  hashOf,
  poll,
  rowIds,
  runsTableCell,
} from './viewer-page.js';
import { copyGrowingRun, type DemoRuns, playBashFileRun, playDemoRuns, recordsOf } from './viewer-runs.js';

// The viewer's page in headless Chromium (Debian's, through playwright-core) on two demo/sql runs
// written by the CLI: the gold agent, and a replay that fails, solves late or runs out of turns on
// some tasks. Each test starts its own viewer in this process (`startViewer`, a free loopback port).

const TITLE = 'intercode view in headless Chromium';
const noChromium = chromiumMissing();

// The suite's timeout is a bound for a hung test only, generous for a loaded machine (two files at once on
// 2 cores); nothing here is timed against a limit.
if (noChromium) describeMissing(TITLE, noChromium);
else
  describe(TITLE, { timeout: 180_000 }, () => {
    let runs: DemoRuns;
    it.beforeAll(({ cli, fileTempDir }) => {
      runs = playDemoRuns(cli, fileTempDir('viewer-runs'));
    }, 240_000);

    it('shows two runs side by side with the success rates of intercode report, and draws the plots', async ({
      cli,
      view,
      viewerPage: { page },
      screenshot,
    }) => {
      const viewer = await view([runs.gold, runs.replay]);
      const report = cli.run(['report', runs.gold, runs.replay, '--json']);
      expect(report.status, report.stderr).toBe(0);
      const reported = (JSON.parse(report.stdout) as { runs: { overall: { successRate: number } }[] }).runs;
      expect(reported.map((run) => run.overall.successRate)[0]).toBe(1);
      expect(reported[1]!.overall.successRate).toBeGreaterThan(0);
      expect(reported[1]!.overall.successRate).toBeLessThan(1);

      await page.goto(viewer.url);
      await byTestId(page, 'runs-table').waitFor();
      for (const id of [0, 1]) {
        await poll(() => byTestId(page, `run-column-${id}`).count()).toBe(1);
        const cell = await runsTableCell(page, id, /^\s*success %/);
        // The page writes a rate as a percentage with one decimal.
        expect(cell).toContain((reported[id]!.overall.successRate * 100).toFixed(1));
        await poll(() => byTestId(page, `open-run-${id}`).count()).toBeGreaterThan(0);
        // Neither run has a line the viewer skipped.
        expect(await byTestId(page, `skipped-${id}`).count()).toBe(0);
      }
      for (const plot of ['plot-success-by-turn', 'plot-rewards', 'plot-groups']) {
        // Two runs: a series in each run's colour.
        await expectPlotDrawn(byTestId(page, plot), 2);
      }
      await screenshot('runs-page', page);
      await screenshot('plot-success-by-turn', byTestId(page, 'plot-success-by-turn'));
    });

    it('filters by status and group, searches text and sorts; the totals are the API’s', async ({
      view,
      viewerPage: { page },
      screenshot,
    }) => {
      const viewer = await view([runs.gold, runs.replay]);
      await page.goto(`${viewer.url}#/runs/1/episodes`);
      await byTestId(page, 'episode-list').waitFor();
      await expectShownTotal(page, await apiTotal(viewer.url, 1));
      expect((await rowIds(page)).length).toBeGreaterThan(0);

      for (const status of ['failed', 'solved', 'truncated']) {
        await byTestId(page, 'filter-status').selectOption(status);
        const total = await apiTotal(viewer.url, 1, `status=${status}`);
        expect(total, status).toBeGreaterThan(0);
        await expectShownTotal(page, total);
        await poll(() => hashOf(page)).toContain(`status=${status}`);
      }
      const groups = (await apiRuns(viewer.url))[1]!.byGroup;
      const group = Object.keys(groups).sort()[0]!;
      await byTestId(page, 'filter-group').selectOption(group);
      await expectShownTotal(page, await apiTotal(viewer.url, 1, `status=truncated&group=${group}`));
      await byTestId(page, 'filter-status').selectOption('');
      await expectShownTotal(page, await apiTotal(viewer.url, 1, `group=${group}`));
      await byTestId(page, 'filter-group').selectOption('');

      // Text search looks in the actions too: "sqlite_master" is only in the replay's wrong first turns.
      await byTestId(page, 'filter-text').fill('sqlite_master');
      await byTestId(page, 'filter-text').press('Enter');
      const found = await apiTotal(viewer.url, 1, 'q=sqlite_master');
      expect(found).toBeGreaterThan(0);
      expect(found).toBeLessThan(recordsOf(runs.replay).length);
      await expectShownTotal(page, found);
      await poll(() => hashOf(page)).toContain('q=sqlite_master');
      // Without Enter, the search applies once typing stops.
      await byTestId(page, 'filter-text').fill('Portugal');
      const portugal = await apiTotal(viewer.url, 1, 'q=Portugal');
      expect(portugal).toBeGreaterThan(0);
      expect(portugal).not.toBe(found);
      await expectShownTotal(page, portugal);
      await byTestId(page, 'filter-text').fill('');
      await byTestId(page, 'filter-text').press('Enter');

      await byTestId(page, 'filter-sort').selectOption('turns');
      await byTestId(page, 'filter-desc').check();
      const sorted = await fetch(new URL('api/runs/1/episodes?sort=turns&desc=1&limit=5', viewer.url));
      const expected = ((await sorted.json()) as { rows: { id: number }[] }).rows.map((row) => row.id);
      await poll(async () => (await rowIds(page)).slice(0, 5)).toEqual(expected);
      await poll(() => hashOf(page)).toMatch(/sort=turns/);
      await screenshot('episode-list', page);
    });

    it('lists the episodes on which two runs disagree (versus)', async ({ view, viewerPage: { page } }) => {
      const viewer = await view([runs.gold, runs.replay]);
      const gold = recordsOf(runs.gold);
      const replay = recordsOf(runs.replay);
      const solvedInGold = new Map(gold.map((record) => [record.taskId, record.success]));
      const disagreeing = replay.filter((record) => solvedInGold.get(record.taskId) !== record.success);
      expect(disagreeing.length).toBeGreaterThan(0);
      expect(await apiTotal(viewer.url, 1, 'versus=0')).toBe(disagreeing.length);

      await page.goto(`${viewer.url}#/runs/1/episodes`);
      await byTestId(page, 'episode-list').waitFor();
      await byTestId(page, 'filter-versus').selectOption('0');
      await expectShownTotal(page, disagreeing.length);
      await poll(() => hashOf(page)).toContain('versus=0');
      const shown = await rowIds(page);
      const ids = new Set(replay.flatMap((record, id) => (disagreeing.includes(record) ? [id] : [])));
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.filter((id) => !ids.has(id))).toEqual([]);
      // The same from the other side, by deep link.
      await page.goto(`${viewer.url}#/runs/0/episodes?versus=1`);
      await expectShownTotal(page, disagreeing.length);
    });

    it('opens an episode and steps through turns (j/k) and episodes (n/p); Escape goes back', async ({
      view,
      viewerPage: { page },
      screenshot,
    }) => {
      const viewer = await view([runs.gold, runs.replay]);
      const replay = recordsOf(runs.replay);
      const id = replay.findIndex((record) => record.turns.length === 3 && record.success);
      expect(id).toBeGreaterThanOrEqual(0);
      const record = replay[id]!;

      await page.goto(`${viewer.url}#/runs/1/episodes?status=solved`);
      await byTestId(page, 'episode-list').waitFor();
      await page.locator(`[data-testid="episode-row"][data-id="${id}"]`).click();
      await byTestId(page, 'episode-view').waitFor();
      expect(await byTestId(page, 'episode-query').textContent()).toContain(record.query);
      await poll(() => byTestId(page, 'turn').count()).toBe(3);
      const actions = await byTestId(page, 'turn-action').allTextContents();
      expect(actions.map((text, turn) => text.includes(record.turns[turn]!.action))).toEqual([
        true,
        true,
        true,
      ]);
      expect(await byTestId(page, 'turn-observation').first().textContent()).toContain(
        record.turns[0]!.observation.split('\n')[0]!,
      );
      expect(await byTestId(page, 'gold').textContent()).toContain(String(record.gold));
      // The agent's last output beside the gold: the last turn's observation.
      expect(await byTestId(page, 'agent-output').textContent()).toContain(
        record.turns[2]!.observation.split('\n')[0]!,
      );
      expect(await byTestId(page, 'gold-output').count()).toBe(1);
      await screenshot('episode', page);

      const start = await currentTurn(page);
      expect(start).toBeGreaterThanOrEqual(0);
      await page.keyboard.press('j');
      await poll(() => currentTurn(page)).toBe(Math.min(start + 1, 2));
      await page.keyboard.press('j');
      await page.keyboard.press('j');
      await poll(() => currentTurn(page)).toBe(2);
      await page.keyboard.press('k');
      await poll(() => currentTurn(page)).toBe(1);

      // n/p: the next and previous episodes of the list it came from (solved ones, by id).
      const solved = replay.flatMap((entry, index) => (entry.success ? [index] : []));
      const next = solved[solved.indexOf(id) + 1]!;
      expect(next).toBeDefined();
      await page.keyboard.press('n');
      await poll(() => hashOf(page)).toMatch(new RegExp(`^#/runs/1/episodes/${next}(\\?|$)`));
      await poll(() => byTestId(page, 'episode-query').textContent()).toContain(replay[next]!.query);
      await page.keyboard.press('p');
      await poll(() => hashOf(page)).toMatch(new RegExp(`^#/runs/1/episodes/${id}(\\?|$)`));
      expect(hashOf(page)).toContain('status=solved');

      await page.keyboard.press('Escape');
      await byTestId(page, 'episode-list').waitFor();
      await poll(() => hashOf(page)).toMatch(/^#\/runs\/1\/episodes\?.*status=solved/);
      expect(await byTestId(page, 'episode-view').count()).toBe(0);
    });

    it("shows the gold's output beside the agent's, and a Bash run's file changes as a diff", {
      timeout: 300_000,
    }, async ({ cli, tempDir, needs, view, viewerPage: { page }, screenshot }) => {
      // SQL: the gold query's output, recorded in the scored turn's details.
      const gold = recordsOf(runs.gold);
      const sqlId = gold.findIndex((record) =>
        (record.turns.at(-1)?.details?.goldOutput ?? '').includes('\n'),
      );
      expect(sqlId).toBeGreaterThanOrEqual(0);
      const goldOutput = gold[sqlId]!.turns.at(-1)!.details!.goldOutput!;
      const viewer = await view([runs.gold]);
      await page.goto(`${viewer.url}#/runs/0/episodes/${sqlId}`);
      await byTestId(page, 'episode-view').waitFor();
      expect(await byTestId(page, 'gold-output').textContent()).toContain(goldOutput.split('\n')[0]!);
      expect(await byTestId(page, 'agent-output').textContent()).toContain(goldOutput.split('\n')[0]!);
      expect(await byTestId(page, 'file-diff').count()).toBe(0);

      needs(await bwrapMissing());
      const bash = playBashFileRun(cli, tempDir('viewer-bash'));
      const records = recordsOf(bash);
      const bashViewer = await view([bash]);
      for (const [id, record] of records.entries()) {
        const details = record.turns.at(-1)!.details!;
        const paths = [...(details.agentChanges ?? []), ...(details.evalChanges ?? [])].map(
          (change) => change.path,
        );
        expect(paths.length, record.taskId).toBeGreaterThan(0);
        await page.goto(`${bashViewer.url}#/runs/0/episodes/${id}`);
        const diff = byTestId(page, 'file-diff');
        await diff.waitFor();
        // Only the hash changes: the previous episode's diff may still be on the page for a moment.
        for (const path of paths)
          await poll(async () => (await diff.textContent()) ?? '').toContain(`/${path}`);
        if (id === 0) await screenshot('episode-file-diff', page);
      }
    });

    it('deep links: an episode URL and a filtered list URL load directly', async ({
      view,
      viewerPage: { page },
    }) => {
      const viewer = await view([runs.gold, runs.replay]);
      const replay = recordsOf(runs.replay);
      await page.goto(`${viewer.url}#/runs/1/episodes/7`);
      await byTestId(page, 'episode-view').waitFor();
      expect(await byTestId(page, 'episode-query').textContent()).toContain(replay[7]!.query);
      expect(await byTestId(page, 'turn').count()).toBe(replay[7]!.turns.length);

      const page2 = await page.context().newPage();
      await page2.goto(`${viewer.url}#/runs/1/episodes?status=truncated&sort=reward`);
      await byTestId(page2, 'episode-list').waitFor();
      await expectShownTotal(page2, await apiTotal(viewer.url, 1, 'status=truncated'));
      expect(await byTestId(page2, 'filter-status').inputValue()).toBe('truncated');
      expect(await byTestId(page2, 'filter-sort').inputValue()).toBe('reward');
      const truncated = new Set(replay.flatMap((record, id) => (record.truncated ? [id] : [])));
      const shown = await rowIds(page2);
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.filter((id) => !truncated.has(id))).toEqual([]);
    });

    it('shows an episode appended to episodes.jsonl while the page is open, without a reload', async ({
      view,
      viewerPage: { page },
      tempDir,
    }) => {
      const growing = copyGrowingRun(runs.gold, tempDir('viewer-growing'));
      const viewer = await view([growing.directory]);
      await page.goto(`${viewer.url}#/runs/0/episodes`);
      await byTestId(page, 'episode-list').waitFor();
      await expectShownTotal(page, growing.episodes);
      let reloaded = false;
      page.on('load', () => {
        reloaded = true;
      });
      growing.appendLast();
      // The server reads the file again every second and tells the page.
      await expectShownTotal(page, growing.episodes + 1);
      const newRow = page.locator(`[data-testid="episode-row"][data-id="${growing.episodes}"]`);
      await poll(async () => {
        await byTestId(page, 'episode-list').evaluate((list) => list.scrollTo(0, list.scrollHeight));
        return newRow.count();
      }, 'the new row').toBe(1);
      expect(reloaded).toBe(false);
    });

    it('intercode view from the CLI prints its URL as JSON, serves the page and stops on SIGINT', async ({
      cli,
      viewerPage: { page },
    }) => {
      const started = cli.start(['view', runs.gold, runs.replay, '--port', '0', '--json']);
      let stdout = '';
      started.child.stdout!.on('data', (chunk: string) => {
        stdout += chunk;
      });
      await poll(() => stdout.includes('\n'), 'the listening line').toBe(true);
      const listening = JSON.parse(stdout.split('\n')[0]!) as { url: string; runs: string[] };
      expect(listening.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(listening.runs).toEqual([runs.gold, runs.replay]);

      await page.goto(listening.url);
      await byTestId(page, 'runs-table').waitFor();
      await poll(() => page.locator('[data-testid^="run-column-"]').count()).toBe(2);
      await expectPlotDrawn(byTestId(page, 'plot-success-by-turn'));

      expect(started.child.pid).toBeGreaterThan(0);
      process.kill(started.child.pid!, 'SIGINT');
      const result = await started.done;
      expect(result.signal, result.stderr).toBeNull();
      expect(result.status, result.stderr).toBe(0);
    });
  });
