import type { EpisodeSink, SessionTransport } from './episode-tracker.js';
import type { ExecutionSlots } from './execution-slots.js';
import type { RunPool } from './run-pool.js';
import type { ServerEnvDefaults, SessionRegistries } from './session-config.js';
import type { SessionParams } from './wire-schemas.js';

/** What a session is made with. */
export interface EnvSessionOptions {
  readonly pool: RunPool;
  readonly registries: SessionRegistries;
  readonly defaults: ServerEnvDefaults;
  /** Deadline of one reset or step; past it the env is discarded and replaced at the next reset. */
  readonly stepTimeoutMs: number;
  /** Shared by every session of the server: how many resets and steps run at once. */
  readonly slots?: ExecutionSlots;
  /** Options given when the session was opened (`POST /intercode/sessions`); each reset may override them. */
  readonly params?: SessionParams;
  /** How the session reached the server (default `http`): recorded episodes name it. */
  readonly transport?: SessionTransport;
  /** Gets every episode of the session as it ends (`intercode serve --out`); none: nothing is tracked. */
  readonly onEpisodeEnd?: EpisodeSink;
}
