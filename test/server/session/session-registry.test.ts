import { afterEach, describe, expect } from 'vitest';
import { SessionError } from '../../../src/server/session/session-error.js';
import type { SessionHost } from '../../../src/server/session/session-host.js';
import type { SessionEndReason } from '../../../src/server/session/session-registry.js';
import { it } from '../../support/fixtures.js';
import { waitFor } from '../../support/wait-for.js';
import { makeHost } from './session-host-fixture.js';

// SessionRegistry with real demo/sql sessions.

let host: SessionHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('SessionRegistry', () => {
  it('refuses sessions past its capacity with the counts, and frees a slot on close', async ({ cache }) => {
    expect(cache).toBeTruthy();
    host = makeHost({ maxSessions: 2 });
    const registry = host.sessions;
    const a = registry.open({ owner: 'token-a' });
    registry.open({ owner: 'token-a' });
    expect(registry.countOf('token-a')).toBe(2);
    const refused = (() => {
      try {
        registry.open({ owner: 'token-b' });
      } catch (error) {
        return error;
      }
      return undefined;
    })() as SessionError;
    expect(refused).toBeInstanceOf(SessionError);
    expect(refused.code).toBe('CAPACITY_REACHED');
    expect(refused.extra).toEqual({ active_sessions: 2, max_sessions: 2 });
    expect(await registry.close(a.id)).toBe(true);
    expect(await registry.close(a.id)).toBe(false);
    expect(registry.countOf('token-a')).toBe(1);
    expect(registry.open({ owner: 'token-b' }).id).not.toBe(a.id);
    expect(registry.active).toBe(2);
  });

  it('reaps a session idle past the timeout, closes its env and tells its transport', async ({ cache }) => {
    expect(cache).toBeTruthy();
    host = makeHost({ idleTimeoutMs: 200 });
    const ends: SessionEndReason[] = [];
    const session = host.sessions.open({ onEnd: (reason) => ends.push(reason) });
    await session.reset({});
    const busy = host.sessions.open();
    await waitFor(() => ends.length > 0, 10_000);
    expect(ends).toEqual(['idle']);
    expect(session.closed).toBe(true);
    expect(host.sessions.get(session.id)).toBeUndefined();
    await waitFor(() => busy.closed, 10_000);
    expect(host.sessions.active).toBe(0);
  });

  it('keeps a session that is active, and closeAll ends every session as a shutdown', async ({ cache }) => {
    expect(cache).toBeTruthy();
    host = makeHost({ idleTimeoutMs: 60_000 });
    const ends: SessionEndReason[] = [];
    const sessions = [0, 1, 2].map(() => host!.sessions.open({ onEnd: (reason) => ends.push(reason) }));
    await Promise.all(sessions.map((session) => session.reset({})));
    host.sessions.reapIdle(Date.now() + 1000);
    expect(host.sessions.active).toBe(3);
    await host.sessions.closeAll();
    expect(ends).toEqual(['shutdown', 'shutdown', 'shutdown']);
    expect(sessions.every((session) => session.closed)).toBe(true);
    expect(() => host!.sessions.open()).toThrow(SessionError);
  });
});
