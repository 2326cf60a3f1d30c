import { availableParallelism, freemem } from 'node:os';
import type { SessionRegistries } from '../session/session-config.js';
import type { ObservationProfile } from '../session/wire-schemas.js';
import type { McpGateway } from './mcp-gateway.js';

/** Options of {@link startServer}; every one has a default (docs/cli/serve.md). */
export interface ServerOptions {
  /** Default `127.0.0.1`, or `0.0.0.0` when a token is given. */
  readonly host?: string;
  /** Default 8000; 0 picks a free port (the running server says which). */
  readonly port?: number;
  /** Bearer token; required to bind beyond loopback. */
  readonly token?: string;
  /** Default: min(32 × cores, free memory / 192 MiB), at least 1. */
  readonly maxSessions?: number;
  /**
   * Resets and steps running at once, all sessions together (default 2 × cores); the others wait in
   * turn, within their step deadline, so that commands do not pass their action time limit on a busy
   * machine.
   */
  readonly maxConcurrentSteps?: number;
  /** Default 600 s. */
  readonly idleTimeoutMs?: number;
  /** Deadline of one reset or step, default 50 s (below OpenEnv clients' 60 s reply timeout). */
  readonly stepTimeoutMs?: number;
  /** Largest request body or WS frame, default 1 MiB. */
  readonly maxMessageBytes?: number;
  /** WS ping interval, default 20 s. */
  readonly pingIntervalMs?: number;
  /** Dataset of a reset that names none, default `demo/sql`. */
  readonly dataset?: string;
  /** Default 10. */
  readonly maxTurns?: number;
  readonly backend?: string;
  readonly image?: string;
  readonly engine?: string;
  readonly dbUrl?: string;
  /** Default `default`. */
  readonly observationProfile?: ObservationProfile;
  /** The MCP side (`POST /mcp`, WS `mcp` frames); default: JSON-RPC errors only. */
  readonly mcp?: McpGateway;
  /** Default: the built-in datasets and environments. */
  readonly registries?: SessionRegistries;
  /**
   * Record every episode played through the server in run directories under this folder
   * (`<dataset-slug>[-<setting>]/episodes.jsonl` and `summary.json`); default: nothing recorded.
   */
  readonly outDir?: string;
  /** With `outDir`: add to run directories that already hold episodes (else refused at start). */
  readonly append?: boolean;
}

export const DEFAULT_PORT = 8000;
export const DEFAULT_IDLE_TIMEOUT_MS = 600_000;
export const DEFAULT_STEP_TIMEOUT_MS = 50_000;
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;
export const DEFAULT_PING_INTERVAL_MS = 20_000;
export const DEFAULT_DATASET = 'demo/sql';
export const DEFAULT_MAX_TURNS = 10;
/** What an idle session with a sandbox is budgeted, for the default session count. */
const SESSION_BUDGET_BYTES = 192 * 1024 * 1024;

/** The default session limit: min(32 × cores, free memory / 192 MiB), at least 1. */
export function defaultMaxSessions(): number {
  return Math.max(1, Math.min(32 * availableParallelism(), Math.floor(freemem() / SESSION_BUDGET_BYTES)));
}

/** True for a host name or address that only this machine can reach. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}
