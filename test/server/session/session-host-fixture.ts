import { SessionHost, type SessionHostOptions } from '../../../src/server/session/session-host.js';

/** A session layer on `dataset` with small limits; the caller closes it (`host.close()`). */
export function makeHost(overrides: Partial<SessionHostOptions> & { dataset?: string } = {}): SessionHost {
  const { dataset = 'demo/sql', ...rest } = overrides;
  return new SessionHost({
    defaults: { dataset, maxTurns: 10, observationProfile: 'default', ...rest.defaults },
    maxSessions: 4,
    idleTimeoutMs: 60_000,
    stepTimeoutMs: 30_000,
    ...rest,
  });
}
