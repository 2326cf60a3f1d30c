import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { startViewer, type Viewer } from '../../src/viewer/viewer-server.js';
import { test as base } from '../support/fixtures.js';
import { CHROMIUM } from '../support/missing-components.js';

// The viewer's browser tests: Debian's Chromium (never a downloaded browser) driven through
// playwright-core, launched once per test file; a page per test that fails the test on any console
// error, uncaught page error or dialog; viewers started in-process on a free loopback port; and
// screenshots checked to be PNG images.

/**
 * Chromium's flags. `--no-sandbox`: the tests run as root (CI, test:all), and Chromium refuses to
 * start its own sandbox as root; the page it loads is the project's, from loopback. The rest keep it
 * off the network it would otherwise call at start (updates, sync, field trials: this machine has
 * no internet, and those refused connections would be noise, or slow the start).
 */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A page of a test, with what went wrong in it. */
export interface ViewerPage {
  readonly page: Page;
  /** Console errors, uncaught errors and dialogs seen so far (each fails the test at its end). */
  readonly problems: string[];
}

/** The eight bytes every PNG file starts with. */
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Checks that a file is a PNG image with a non-empty picture (width and height of its header). */
export function expectPng(path: string): void {
  const bytes = readFileSync(path);
  expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE), `${path} is not a PNG file`).toBe(true);
  // IHDR follows the signature: length (4), type (4), width (4), height (4).
  expect(bytes.toString('latin1', 12, 16)).toBe('IHDR');
  expect(bytes.readUInt32BE(16)).toBeGreaterThan(0);
  expect(bytes.readUInt32BE(20)).toBeGreaterThan(0);
  expect(bytes.length).toBeGreaterThan(1_000);
}

/* biome-ignore-start lint/correctness/noEmptyPattern: Vitest reads fixture dependencies from a
   destructured first argument, so a fixture that needs none destructures nothing. */
export const test = base
  /** Headless Chromium for the test file, closed when it ends. */
  .extend('browser', { scope: 'file' }, async ({}, { onCleanup }): Promise<Browser> => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    onCleanup(() => browser.close());
    return browser;
  })
  /**
   * Where screenshots go: INTERCODE_SCREENSHOT_DIR when set (kept, to look at), else a temporary
   * folder of the file (removed with it).
   */
  .extend('screenshotDir', { scope: 'file' }, ({ fileTempDir }): string => {
    const wanted = process.env.INTERCODE_SCREENSHOT_DIR;
    if (!wanted) return fileTempDir('viewer-screenshots');
    mkdirSync(wanted, { recursive: true });
    return wanted;
  })
  /** Starts `intercode view` in this process (`startViewer`, port 0, loopback) on run directories; closed at the end of the test. */
  .extend('view', ({}, { onCleanup }) => {
    const viewers: Viewer[] = [];
    onCleanup(async () => {
      await Promise.all(viewers.splice(0).map((viewer) => viewer.close()));
    });
    return async (directories: readonly string[]): Promise<Viewer> => {
      const viewer = await startViewer({ directories, port: 0, host: '127.0.0.1' });
      viewers.push(viewer);
      return viewer;
    };
  })
  /**
   * A fresh page (its own browser context) that records console errors, uncaught errors and
   * dialogs (a dialog is dismissed: a hostile string that reached `alert` must fail the test, not
   * hang it). The test fails at its end when any was seen; the context is closed either way.
   */
  .extend('viewerPage', async ({ browser, onTestFinished }, { onCleanup }): Promise<ViewerPage> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    onCleanup(() => context.close());
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => {
      problems.push(`dialog (${dialog.type()}): ${dialog.message()}`);
      void dialog.dismiss().catch(() => {});
    });
    onTestFinished(() => {
      expect(problems, 'console errors, page errors or dialogs in the page').toEqual([]);
    });
    return { page, problems };
  })
  /**
   * Saves a screenshot of the page (or of one element) as `<name>.png` in the screenshot folder,
   * checks it is a PNG image, and returns its path.
   */
  .extend('screenshot', ({ screenshotDir }) => {
    return async (name: string, target: Page | Locator): Promise<string> => {
      const path = join(screenshotDir, `${name}.png`);
      await target.screenshot({ path });
      expectPng(path);
      return path;
    };
  });
/* biome-ignore-end lint/correctness/noEmptyPattern: see above */

/** The same as `test`, for suites written with `it`. */
export const it = test;
