import { expect } from 'vitest';
import { mib } from './process-tree.js';
import { jsonHttp } from './raw-http.js';
import type { ServedIntercode } from './served-intercode.js';

/** What a server held at rest: resident memory and live sandboxes (ours from /proc, and its own count). */
export interface ServerBaseline {
  readonly rssBytes: number;
  readonly sandboxes: number;
  /** The `sandboxes` field of GET /intercode/sessions, when the server reports one. */
  readonly reported: number | undefined;
  readonly active: number;
}

/** RSS may stay this much above the baseline once the sessions are closed (V8 keeps some heap). */
export const RSS_TOLERANCE_BYTES = 64 * 1024 * 1024;

async function sessions(server: ServedIntercode, headers: Record<string, string>) {
  const reply = await jsonHttp(server.url, 'GET', '/intercode/sessions', undefined, headers);
  expect(reply.status).toBe(200);
  return reply.json as { active: number; sandboxes?: number };
}

/** Reads the server's baseline now. */
export async function measureBaseline(
  server: ServedIntercode,
  headers: Record<string, string> = {},
): Promise<ServerBaseline> {
  const info = await sessions(server, headers);
  return {
    rssBytes: server.rss(),
    sandboxes: server.sandboxes(),
    reported: info.sandboxes,
    active: info.active,
  };
}

/**
 * Waits (up to `timeoutMs`) until the server is back at `baseline`: the same sessions and sandboxes
 * (exactly) and RSS within RSS_TOLERANCE_BYTES; prints one line with the figures (`label` names the
 * case) and fails the test on what did not come back.
 */
export async function expectBackToBaseline(
  server: ServedIntercode,
  baseline: ServerBaseline,
  label: string,
  options: { headers?: Record<string, string>; peakRssBytes?: number; timeoutMs?: number } = {},
): Promise<void> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 30_000;
  let now = await measureBaseline(server, options.headers);
  const back = (m: ServerBaseline): boolean =>
    m.sandboxes === baseline.sandboxes &&
    m.active === baseline.active &&
    m.reported === baseline.reported &&
    m.rssBytes <= baseline.rssBytes + RSS_TOLERANCE_BYTES;
  while (!back(now) && Date.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    now = await measureBaseline(server, options.headers);
  }
  const peak = options.peakRssBytes === undefined ? '' : `, peak ${mib(options.peakRssBytes)} MiB`;
  console.log(
    `hostile ${label}: rss ${mib(now.rssBytes)} MiB (baseline ${mib(baseline.rssBytes)} MiB, ` +
      `${now.rssBytes >= baseline.rssBytes ? '+' : ''}${mib(now.rssBytes - baseline.rssBytes)}${peak}), ` +
      `sandboxes ${now.sandboxes} (baseline ${baseline.sandboxes}; server reports ${String(now.reported)}), ` +
      `sessions ${now.active} (baseline ${baseline.active}), settled in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  expect(now.sandboxes, `${label}: live sandboxes`).toBe(baseline.sandboxes);
  expect(now.reported, `${label}: reported sandboxes`).toBe(baseline.reported);
  expect(now.active, `${label}: active sessions`).toBe(baseline.active);
  expect(now.rssBytes, `${label}: RSS within +64 MiB of the baseline`).toBeLessThanOrEqual(
    baseline.rssBytes + RSS_TOLERANCE_BYTES,
  );
}

/** Samples the server's RSS every `everyMs` until stopped; returns the peak. */
export function samplePeakRss(server: ServedIntercode, everyMs = 100): { stop(): number } {
  let peak = server.rss();
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, server.rss());
    } catch {
      // the server is gone; the test reads that elsewhere
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}
