/**
 * The package as a user gets it: `npm pack`, the tarball installed into an empty folder (offline
 * friendly: npm's cache holds every dependency, and better-sqlite3 builds against the local Node
 * headers), then the installed `intercode` plays demo/bash and demo/python with the gold agent in
 * real bwrap sandboxes. Whatever the CLI needs at run time beside dist/ (helper programs, data) must
 * ship in the package for this to pass.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { episodeLine } from '../src/harness/episode-record.js';
import { sampleRecord } from './harness/sample-records.js';
import { expectEverySolved } from './support/expect-every-solved.js';
import { it } from './support/fixtures.js';
import { jsonLines } from './support/json-lines.js';
import { bwrapMissing } from './support/missing-components.js';
import { PROJECT_ROOT } from './support/project.js';

const noBwrap = await bwrapMissing();

/** The folder the tarball was installed into (its node_modules/intercode is the package). */
let app = '';

/** This process's environment without npm's own variables (npm test sets them for the project). */
function cleanEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('npm_')) env[name] = value;
  return { ...env, ...extra };
}

function ran(what: string, result: SpawnSyncReturns<string>): SpawnSyncReturns<string> {
  if (result.status !== 0) {
    throw new Error(`${what} failed (${result.status ?? result.signal}): ${result.stderr || result.error}`);
  }
  return result;
}

it.beforeAll(async ({ fileTempDir }) => {
  const packed = fileTempDir('pack');
  // dist/ is built already (`npm test` builds first): packing without scripts leaves it alone while
  // other test files run the CLI from it.
  const pack = ran(
    'npm pack',
    spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packed], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: cleanEnv(),
    }),
  );
  const [{ filename }] = JSON.parse(pack.stdout) as [{ filename: string }];
  app = fileTempDir('installed');
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'intercode-package-test',
      private: true,
      allowScripts: { 'better-sqlite3': true },
    }),
  );
  ran(
    'npm install of the tarball',
    spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(packed, filename)], {
      cwd: app,
      encoding: 'utf8',
      env: cleanEnv(),
      timeout: 900_000,
    }),
  );
}, 960_000);

describe('the npm package', () => {
  it('installs from its tarball into an empty folder, with the intercode command', () => {
    const installed = JSON.parse(readFileSync(join(app, 'node_modules/intercode/package.json'), 'utf8')) as {
      version: string;
    };
    const source = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(installed.version).toBe(source.version);
    expect(existsSync(join(app, 'node_modules/.bin/intercode'))).toBe(true);
    // Only what a user needs: no sources or tests.
    expect(existsSync(join(app, 'node_modules/intercode/src'))).toBe(false);
    expect(existsSync(join(app, 'node_modules/intercode/test'))).toBe(false);
  });

  it("ships the viewer's built page: report --format html through the installed CLI draws it", ({
    tempDir,
  }) => {
    for (const file of ['index.html', 'app.js', 'app.css']) {
      expect(existsSync(join(app, 'node_modules/intercode/dist/viewer/assets', file))).toBe(true);
    }
    const run = tempDir('run');
    writeFileSync(join(run, 'episodes.jsonl'), episodeLine(sampleRecord('packaged')));
    const report = ran(
      'npx intercode report --format html',
      spawnSync('npx', ['--no', 'intercode', 'report', run, '--format', 'html'], {
        cwd: app,
        encoding: 'utf8',
        env: cleanEnv({ INTERCODE_DEBUG: '' }),
      }),
    );
    expect(report.stdout.startsWith('<!doctype html>')).toBe(true);
    expect(report.stdout.includes('<script type="module">')).toBe(true);
  });

  it.for([
    { dataset: 'demo/bash', tasks: 30 },
    { dataset: 'demo/python', tasks: 24 },
  ])(
    'plays every $dataset task with the gold agent through the installed CLI: $tasks/$tasks solved',
    { timeout: 300_000 },
    ({ dataset, tasks }, { cache, needs, tempDir }) => {
      needs(noBwrap);
      const out = join(tempDir('package-run'), 'run');
      const run = ran(
        `npx intercode run ${dataset}`,
        spawnSync('npx', ['--no', 'intercode', 'run', dataset, '--agent', 'gold', '--out', out, '--json'], {
          cwd: app,
          encoding: 'utf8',
          env: cleanEnv({ INTERCODE_CACHE_DIR: cache, INTERCODE_DEBUG: '' }),
          timeout: 280_000,
        }),
      );
      expect(run.stderr).toBe('');
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Record<string, unknown>;
      expect(JSON.parse(run.stdout)).toEqual(summary);
      expect(summary).toMatchObject({ dataset, agent: 'gold', n: tasks, solved: tasks, complete: true });
      const episodes = jsonLines<{ taskId: string; maxReward: number; goldCorrupt?: boolean }>(
        join(out, 'episodes.jsonl'),
      );
      expect(episodes).toHaveLength(tasks);
      expectEverySolved(episodes);
    },
  );
});
