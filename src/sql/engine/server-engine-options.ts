import type { DumpModel } from '../dump/dump-model.js';
import type { ManagedServer } from '../server/managed-server.js';

/** The connection of a server engine to its database server. */
export interface ServerBackend<Endpoint = unknown> {
  readonly pool: { query(sql: string): Promise<unknown>; end(): Promise<void> };
  /** Where the server is, as the administrator account. */
  readonly endpoint: Endpoint;
  /** A server the engine started (and stops at close). */
  readonly ownServer?: ManagedServer;
  /** The server, when it is one of intercode's own (started by this engine or given to it). */
  readonly server?: ManagedServer;
  /**
   * A server the engine did not start (`url`, or `server` given by the caller): names of
   * per-session objects then carry the owner label, and what the engine made there is dropped at close.
   */
  readonly shared: boolean;
}

/** A prepared database of a server engine and its pool of session copies nobody uses. */
export interface PreparedServerDatabase<Slot> {
  readonly name: string;
  readonly sha256: string;
  /** Copies no session uses. */
  readonly free: Slot[];
  /** Copies made so far (numbers the next one). */
  slots: number;
}

/** Options every server engine takes. */
export interface ServerEngineOptions<Server extends ManagedServer> {
  /** A server of the user's, as an account that can make databases and accounts (checked at start). */
  readonly url?: string;
  /** A server started by the caller, shared; `close()` leaves it running. */
  readonly server?: Server;
  /** Rows counted in all before counting stops (`totalRowsCapped`), default 100,000. */
  readonly countLimit?: number;
  /** Time between cancelling a statement past its limit and ending its connection, default 2 s. */
  readonly killGraceMs?: number;
  /**
   * The dump a server of the engine's own starts with: its loaded data directory is kept in the user
   * cache (`<cache>/sql/servers/<kind>-loaded-<hash>`), and the next start runs on it (copy-on-write)
   * instead of loading the dump (`prepare` then finds the templates there). May still be being read
   * while the server starts. Ignored on a `url` or `server`. Where the data came from: `dataCache`.
   */
  readonly preload?: DumpModel | Promise<DumpModel>;
}

/** How a server engine names things on the server. */
export interface ServerNaming {
  /** Longest database name the server takes. */
  readonly databaseLength: number;
  /** Longest account name the server takes. */
  readonly accountLength: number;
  /** Database names that are the server's own (never a session copy's plain name). */
  readonly reserved: ReadonlySet<string>;
  /** Names starting with this are intercode's own (never a session copy's plain name). */
  readonly ownPrefix: string;
}
