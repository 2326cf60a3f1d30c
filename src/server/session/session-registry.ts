import type { EnvSession } from './env-session.js';
import type { SessionTransport } from './episode-tracker.js';
import { SessionError } from './session-error.js';
import type { SessionParams } from './wire-schemas.js';

/** Limits of a registry. */
export interface SessionRegistryOptions {
  /** Sessions open at once, all transports together (≥ 1). */
  readonly maxSessions: number;
  /** A session without reset, step or MCP call for this long is closed. */
  readonly idleTimeoutMs: number;
  /** Makes a session (the app binds the pool, defaults and step deadline). */
  readonly create: (params?: SessionParams, transport?: SessionTransport) => EnvSession;
}

/** Most sessions one fork makes (the capacity bounds it too). */
export const MAX_FORK = 64;

/** How a transport hears that the registry closes one of its sessions. */
export type SessionEndReason = 'idle' | 'shutdown' | 'deleted';

interface Entry {
  readonly session: EnvSession;
  readonly owner: string;
  readonly onEnd: ((reason: SessionEndReason) => void) | undefined;
}

/**
 * The open sessions of a server: a capacity shared by WebSocket, HTTP and MCP sessions, a count per
 * owner (the bearer token, or the client address), an idle reaper (a session idle past the timeout is
 * closed and its transport told, so a half-open socket cannot hold a slot forever), and closeAll()
 * for shutdown.
 */
export class SessionRegistry {
  readonly maxSessions: number;
  readonly idleTimeoutMs: number;
  readonly #create: (params?: SessionParams, transport?: SessionTransport) => EnvSession;
  readonly #entries = new Map<string, Entry>();
  readonly #perOwner = new Map<string, number>();
  readonly #closing = new Set<Promise<void>>();
  #reaper: NodeJS.Timeout | undefined;
  #shutDown = false;
  /** Sessions a fork in progress will open (held out of the capacity meanwhile). */
  #reserved = 0;

  constructor(options: SessionRegistryOptions) {
    if (!Number.isInteger(options.maxSessions) || options.maxSessions < 1) {
      throw new RangeError(`maxSessions must be a positive integer, got ${options.maxSessions}`);
    }
    this.maxSessions = options.maxSessions;
    this.idleTimeoutMs = options.idleTimeoutMs;
    this.#create = options.create;
    const everyMs = Math.min(Math.max(options.idleTimeoutMs / 4, 50), 5000);
    this.#reaper = setInterval(() => this.reapIdle(), everyMs);
    this.#reaper.unref();
  }

  /** Sessions open now. */
  get active(): number {
    return this.#entries.size;
  }

  /** Sessions open now by `owner`. */
  countOf(owner: string): number {
    return this.#perOwner.get(owner) ?? 0;
  }

  /**
   * Opens a session, or throws CAPACITY_REACHED (with `active_sessions`, `max_sessions`). `onEnd` is
   * called when the registry (not the transport) ends it: idle timeout, shutdown, DELETE. `transport`
   * (default `http`) names the session's episodes in the records of `intercode serve --out`.
   */
  open(
    options: {
      owner?: string;
      params?: SessionParams;
      transport?: SessionTransport;
      onEnd?: (reason: SessionEndReason) => void;
    } = {},
  ): EnvSession {
    if (this.#shutDown)
      throw new SessionError('CAPACITY_REACHED', 'the server is shutting down', this.#capacity());
    if (this.#entries.size + this.#reserved >= this.maxSessions) {
      throw new SessionError(
        'CAPACITY_REACHED',
        `the server is at its capacity of ${this.maxSessions} sessions: close one or retry later`,
        this.#capacity(),
      );
    }
    const session = this.#create(options.params, options.transport);
    const owner = options.owner ?? '';
    this.#entries.set(session.id, { session, owner, onEnd: options.onEnd });
    this.#perOwner.set(owner, this.countOf(owner) + 1);
    return session;
  }

  /**
   * Forks session `id`'s episode into `count` new sessions of the same owner (see `EnvSession.fork`),
   * within the capacity: CAPACITY_REACHED when they would not all fit.
   */
  async fork(
    id: string,
    count: number,
    owner = '',
  ): Promise<{ sessions: EnvSession[]; notCopied: readonly string[] }> {
    const entry = this.#entries.get(id);
    if (!entry)
      throw new SessionError(
        'SESSION_NOT_FOUND',
        `no session "${id}" (closed, reaped after idling, or never opened)`,
      );
    if (this.#shutDown)
      throw new SessionError('CAPACITY_REACHED', 'the server is shutting down', this.#capacity());
    if (this.#entries.size + this.#reserved + count > this.maxSessions) {
      throw new SessionError(
        'CAPACITY_REACHED',
        `forking into ${count} sessions would pass the server's capacity of ${this.maxSessions} (${this.#entries.size} open)`,
        this.#capacity(),
      );
    }
    this.#reserved += count;
    const made: EnvSession[] = [];
    try {
      const params = entry.session.params;
      return await entry.session.fork(count, () => {
        this.#reserved -= 1;
        const session = this.open({ owner, ...(params ? { params } : {}) });
        made.push(session);
        return session;
      });
    } catch (error) {
      // The sessions opened for a fork that failed leave the registry too (not only their envs).
      await Promise.all(made.map((session) => this.close(session.id)));
      throw error;
    } finally {
      this.#reserved -= count - made.length;
    }
  }

  /** The wire form of a fork's result (the HTTP reply and the WebSocket `forked` frame). */
  static forkReply(forked: {
    sessions: EnvSession[];
    notCopied: readonly string[];
  }): Record<string, unknown> {
    return {
      session_ids: forked.sessions.map((session) => session.id),
      episode_ids: forked.sessions.map((session) => session.state().episode_id),
      not_copied: forked.notCopied,
    };
  }

  get(id: string): EnvSession | undefined {
    return this.#entries.get(id)?.session;
  }

  /** Closes a session (its env and sandboxes); false when there is none with that id. */
  async close(id: string, reason?: SessionEndReason): Promise<boolean> {
    const entry = this.#entries.get(id);
    if (!entry) return false;
    this.#entries.delete(id);
    const left = this.countOf(entry.owner) - 1;
    if (left > 0) this.#perOwner.set(entry.owner, left);
    else this.#perOwner.delete(entry.owner);
    if (reason !== undefined) entry.onEnd?.(reason);
    const closing = entry.session.close().finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
    await closing;
    return true;
  }

  /** Closes the sessions idle past the timeout (the reaper calls this; a running step is not idle). */
  reapIdle(now: number = Date.now()): void {
    for (const { session } of this.#entries.values()) {
      if (!session.busy && now - session.lastActivity >= this.idleTimeoutMs) {
        void this.close(session.id, 'idle');
      }
    }
  }

  /** Refuses new sessions, closes every open one (transports told `shutdown`) and waits for them. */
  async closeAll(): Promise<void> {
    this.#shutDown = true;
    if (this.#reaper) clearInterval(this.#reaper);
    this.#reaper = undefined;
    await Promise.all([...this.#entries.keys()].map((id) => this.close(id, 'shutdown')));
    while (this.#closing.size > 0) await Promise.all([...this.#closing]);
  }

  #capacity(): { extra: Record<string, unknown> } {
    return { extra: { active_sessions: this.#entries.size, max_sessions: this.maxSessions } };
  }
}
