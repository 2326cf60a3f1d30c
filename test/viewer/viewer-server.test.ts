import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { episodeLine } from '../../src/harness/episode-record.js';
import { htmlReport } from '../../src/viewer/html-report.js';
import { startViewer, type Viewer } from '../../src/viewer/viewer-server.js';
import { sampleRecord } from '../harness/sample-records.js';
import { it } from '../support/fixtures.js';

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A raw request (any method, any Host header) to the viewer. */
function ask(viewer: Viewer, path: string, options: { method?: string; host?: string } = {}): Promise<Reply> {
  const url = new URL(path, viewer.url);
  return new Promise((done, fail) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? 'GET',
        headers: options.host ? { host: options.host } : {},
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => done({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    outgoing.on('error', fail);
    outgoing.end();
  });
}

const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(1)>';

function hostileRun(dir: string): string {
  const records = [
    sampleRecord('plain'),
    sampleRecord('hostile', { query: HOSTILE, group: HOSTILE, success: false, maxReward: 0, reward: 0 }),
  ];
  writeFileSync(join(dir, 'episodes.jsonl'), `${records.map(episodeLine).join('')}{"torn"`);
  return dir;
}

/** A viewer on loopback (free port) of a hostile run in `dir`, closed when the test ends. */
async function viewHostile(
  dir: string,
  onTestFinished: (close: () => Promise<void>) => void,
): Promise<Viewer> {
  const viewer = await startViewer({ directories: [hostileRun(dir)], port: 0, host: '127.0.0.1' });
  onTestFinished(() => viewer.close());
  return viewer;
}

describe('the viewer server', () => {
  it('serves the page and a read-only JSON API with a strict content security policy', async ({
    tempDir,
    onTestFinished,
  }) => {
    const viewer = await viewHostile(tempDir('run'), onTestFinished);
    const page = await ask(viewer, '/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('/assets/app.js');
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(page.headers['content-security-policy']).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect((await ask(viewer, '/assets/app.js')).headers['content-type']).toMatch(/^text\/javascript/);

    const runs = JSON.parse((await ask(viewer, '/api/runs')).body);
    expect(runs.runs[0]).toMatchObject({ id: 0, episodes: 2, skipped: 1 });
    const page0 = JSON.parse((await ask(viewer, '/api/runs/0/episodes?status=failed')).body);
    expect(page0).toMatchObject({ total: 1, rows: [{ taskId: 'hostile', query: HOSTILE }] });
    const episode = JSON.parse((await ask(viewer, '/api/runs/0/episodes/1')).body);
    expect(episode.record.query).toBe(HOSTILE);
    // JSON is never sniffed as a page.
    expect((await ask(viewer, '/api/runs/0/episodes/1')).headers['content-type']).toMatch(
      /^application\/json/,
    );

    expect((await ask(viewer, '/api/runs/0/episodes/7')).status).toBe(404);
    expect((await ask(viewer, '/api/runs/3/episodes')).status).toBe(404);
    const bad = await ask(viewer, '/api/runs/0/episodes?limit=x');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error).toMatch(/parameter limit/);
    expect((await ask(viewer, '/assets/../../package.json')).status).toBe(404);
    expect((await ask(viewer, '/api/runs', { method: 'POST' })).status).toBe(405);
    expect((await ask(viewer, '/api/runs', { method: 'DELETE' })).status).toBe(405);
  });

  it('on loopback, refuses requests naming another host (DNS rebinding)', async ({
    tempDir,
    onTestFinished,
  }) => {
    const viewer = await viewHostile(tempDir('run'), onTestFinished);
    expect((await ask(viewer, '/api/runs', { host: 'attacker.example:8100' })).status).toBe(403);
    expect((await ask(viewer, '/api/runs', { host: `localhost:${new URL(viewer.url).port}` })).status).toBe(
      200,
    );
  });

  it('checks every directory before it listens', async ({ tempDir }) => {
    await expect(
      startViewer({ directories: [tempDir('empty')], port: 0, host: '127.0.0.1' }),
    ).rejects.toThrow(/is not a run directory \(no episodes.jsonl\)/);
  });

  it('tells a listening page when a run grows', async ({ tempDir, onTestFinished }) => {
    const dir = hostileRun(tempDir('run'));
    const viewer = await startViewer({ directories: [dir], port: 0, host: '127.0.0.1', pollMs: 50 });
    onTestFinished(() => viewer.close());
    const versions: string[] = [];
    const url = new URL('/api/events', viewer.url);
    const grown = new Promise<void>((done, fail) => {
      const outgoing = request({ host: url.hostname, port: url.port, path: url.pathname }, (response) => {
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          versions.push(chunk);
          if (versions.length === 1)
            writeFileSync(join(dir, 'episodes.jsonl'), episodeLine(sampleRecord('more')), { flag: 'a' });
          if (versions.length === 2) {
            outgoing.destroy();
            done();
          }
        });
      });
      outgoing.on('error', (error) => (versions.length >= 2 ? done() : fail(error)));
      outgoing.end();
    });
    await grown;
    expect(versions[0]).toMatch(/^data: \[\d+\]/);
    expect(versions[1]).not.toBe(versions[0]);
    const runs = JSON.parse((await ask(viewer, '/api/runs')).body);
    // The torn line was completed by the appended line's start: it is now one invalid line.
    expect(runs.runs[0].episodes + runs.runs[0].skipped).toBeGreaterThanOrEqual(3);
  });
});

describe('the HTML report', () => {
  it('is one page with the runs as a JSON block no text can end, and the script allowed by its hash', ({
    tempDir,
  }) => {
    const html = htmlReport([hostileRun(tempDir('run'))]);
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;sha256-/,
    );
    // The group's name holds the hostile text: in the data block, its `<` are escapes.
    expect(html.includes('<script>alert')).toBe(false);
    expect(html.includes('\\u003cscript>alert(1)\\u003c/script>\\u003cimg')).toBe(true);
    expect(/<link rel="stylesheet"|<script[^>]+src=/.test(html)).toBe(false);
    expect(html.match(/<script/g)).toHaveLength(2);
  });
});

describe('the command line', () => {
  it('intercode view refuses a folder that is not a run in one line; report --format html writes the page', ({
    cli,
    tempDir,
  }) => {
    const empty = tempDir('empty');
    const refused = cli.run(['view', empty, '--port', '0']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe(`intercode: ${empty} is not a run directory (no episodes.jsonl)\n`);
    expect(cli.run(['view', empty, '--port', '70000']).stderr).toMatch(
      /--port must be an integer from 0 to 65535/,
    );
    const report = cli.run(['report', hostileRun(tempDir('run')), '--format', 'html']);
    expect(report.status).toBe(0);
    expect(report.stdout.startsWith('<!doctype html>')).toBe(true);
    expect(report.stdout.includes('id="intercode-report-data"')).toBe(true);
  });
});
