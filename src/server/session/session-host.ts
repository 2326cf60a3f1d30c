import { availableParallelism } from 'node:os';
import { createDatasetRegistry } from '../../datasets/dataset-registry.js';
import { createEnvRegistry } from '../../envs/env-registry.js';
import { EnvSession } from './env-session.js';
import type { EpisodeSink, SessionTransport } from './episode-tracker.js';
import { ExecutionSlots } from './execution-slots.js';
import { RunPool } from './run-pool.js';
import type { ServerEnvDefaults, SessionRegistries } from './session-config.js';
import { SessionRegistry } from './session-registry.js';

/** Settings of the session layer (the `intercode serve` flags it uses). */
export interface SessionHostOptions {
  readonly defaults: ServerEnvDefaults;
  readonly maxSessions: number;
  readonly idleTimeoutMs: number;
  /** Deadline of one reset or step. */
  readonly stepTimeoutMs: number;
  /** How long a run no session uses stays open (default 60 s; the pinned default run stays). */
  readonly unusedRunKeepMs?: number;
  /** Resets and steps running at once, all sessions together (default 2 × cores). */
  readonly maxConcurrentSteps?: number;
  /** Default: the built-in datasets and environments. */
  readonly registries?: SessionRegistries;
  /** Gets every episode played through the server as it ends (`intercode serve --out`). */
  readonly onEpisodeEnd?: EpisodeSink;
}

/**
 * The session layer assembled: the registries, the pool of opened runs and the registry of sessions,
 * sharing one set of defaults. Transports (HTTP, WebSocket, MCP) open sessions from `sessions`;
 * {@link close} ends every session, then every opened run.
 */
export class SessionHost {
  readonly defaults: ServerEnvDefaults;
  readonly registries: SessionRegistries;
  readonly pool: RunPool;
  readonly sessions: SessionRegistry;
  readonly stepTimeoutMs: number;
  readonly slots: ExecutionSlots;
  readonly #onEpisodeEnd: EpisodeSink | undefined;

  constructor(options: SessionHostOptions) {
    this.defaults = options.defaults;
    this.stepTimeoutMs = options.stepTimeoutMs;
    this.#onEpisodeEnd = options.onEpisodeEnd;
    this.registries = options.registries ?? { datasets: createDatasetRegistry(), envs: createEnvRegistry() };
    this.pool = new RunPool(
      this.registries,
      options.unusedRunKeepMs !== undefined ? { unusedRunKeepMs: options.unusedRunKeepMs } : {},
    );
    this.slots = new ExecutionSlots(options.maxConcurrentSteps ?? 2 * availableParallelism());
    this.sessions = new SessionRegistry({
      maxSessions: options.maxSessions,
      idleTimeoutMs: options.idleTimeoutMs,
      create: (params, transport) => this.createSession(params, transport),
    });
  }

  /** A session outside the registry (a stateless HTTP request, a stdio MCP episode): its owner closes it. */
  createSession(params?: EnvSession['params'], transport?: SessionTransport): EnvSession {
    return new EnvSession({
      pool: this.pool,
      registries: this.registries,
      defaults: this.defaults,
      stepTimeoutMs: this.stepTimeoutMs,
      slots: this.slots,
      ...(params ? { params } : {}),
      ...(transport ? { transport } : {}),
      ...(this.#onEpisodeEnd ? { onEpisodeEnd: this.#onEpisodeEnd } : {}),
    });
  }

  /** Opens the run of the server's default configuration, so a setup that cannot work fails at start. */
  async warmUp(): Promise<void> {
    const session = this.createSession();
    try {
      await session.reset({});
    } finally {
      await session.close();
    }
  }

  /** Closes every session, then every opened run (database servers stopped, sandboxes reaped). */
  async close(): Promise<void> {
    await this.sessions.closeAll();
    await this.pool.closeAll();
  }
}
