import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { demoSqlDataset } from '../../src/datasets/demo/demo-sql.js';
import { ScriptedLlmServer } from '../../src/testkit/index.js';
import { episodesOf, finished, goldScript, llmArgs } from '../cli/commands/llm-run-fixture.js';
import { chromiumMissing } from '../support/missing-components.js';
import { describeMissing } from '../support/skip-if-missing.js';
import { it } from './viewer-browser-fixtures.js';
import { byTestId, poll, runsTableCell } from './viewer-page.js';

// A language-model run in the viewer: each turn's model call (tokens, cost, latency) with its
// reasoning folded, the messages sent, and the run's tokens in the runs table. The run is played by
// the real CLI against a scripted model server on loopback (the one fake: a remote model).

const TITLE = "a language-model run's turns in the viewer, in headless Chromium";
const KEY = 'sk-viewer-test';
const REASONING = 'The question asks for ship names; a first guess.';
const noChromium = chromiumMissing();

if (noChromium) describeMissing(TITLE, noChromium);
else
  describe(TITLE, { timeout: 180_000 }, () => {
    it('shows each model call with its reasoning folded, its tokens and the run’s tokens', async ({
      cli,
      tempDir,
      view,
      viewerPage: { page },
      screenshot,
      onTestFinished,
    }) => {
      const tasks = (await demoSqlDataset().load()).tasks.slice(0, 2);
      const gold = goldScript(tasks, 'sql', 'SELECT 1');
      const server = await ScriptedLlmServer.start(
        (request) => ({ ...gold(request), reasoning: REASONING }),
        {
          apiKey: KEY,
          models: ['gpt-4o'],
        },
      );
      onTestFinished(() => server.close());
      const out = join(tempDir('llm-run'), 'run');
      const result = await finished(
        cli.start(['run', 'demo/sql', '--tasks', '0-1', ...llmArgs(server, out)], {
          env: { TEST_LLM_KEY: KEY },
          timeoutMs: 120_000,
        }),
      );
      expect(result.status, result.stderr).toBe(0);
      const episodes = episodesOf(out);
      expect(episodes.map((episode) => episode.turns.length)).toEqual([2, 2]);

      const viewer = await view([out]);
      await page.goto(viewer.url);
      // 2 episodes × 2 calls × (200 in + 30 out) tokens.
      await poll(() => runsTableCell(page, 0, /^tokens$/)).toContain('920');

      await page.goto(`${viewer.url}#/runs/0/episodes/0`);
      await poll(() => byTestId(page, 'turn').count()).toBe(2);
      const call = page.locator('[data-testid="turn"][data-turn="0"] details.call');
      await expect(call.count()).resolves.toBe(1);
      const summary = (await call.locator('summary').first().textContent()) ?? '';
      expect(summary).toMatch(/200 in \/ 30 out tokens/);
      // Folded: the model's output and reasoning are not shown until the call is opened, then the
      // reasoning until it is opened too.
      const reasoning = call.locator('details.reasoning');
      expect(await reasoning.isVisible()).toBe(false);
      await call.locator('summary').first().click();
      expect(await call.getByText('SELECT 1', { exact: false }).first().isVisible()).toBe(true);
      expect(await reasoning.isVisible()).toBe(true);
      expect(await reasoning.getByText(REASONING).isVisible()).toBe(false);
      await reasoning.locator('summary').click();
      expect(await reasoning.getByText(REASONING).isVisible()).toBe(true);
      // The messages sent (the task's query among them), folded as well.
      const messages = call.locator('details.messages');
      await messages.locator('summary').click();
      expect(await messages.textContent()).toContain(tasks[0]!.query);
      await screenshot('llm-episode', page);
    });
  });
