import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { IntercodeError, UsageError } from '../../core/errors.js';
import { createDatasetRegistry } from '../../datasets/dataset-registry.js';
import { createEnvRegistry } from '../../envs/env-registry.js';
import type { RunConfig } from '../../harness/run-config.js';
import { planRun } from '../../harness/run-plan.js';
import { httpDispatcher } from '../http/http-dispatcher.js';
import { addIntercodeRoutes } from '../http/intercode-routes.js';
import { addMcpRoute } from '../http/mcp-route.js';
import { addOpenEnvRoutes } from '../http/openenv-routes.js';
import { RouteTable } from '../http/route-table.js';
import { McpToolGateway } from '../mcp/mcp-tool-gateway.js';
import type { ServerEnvDefaults } from '../session/session-config.js';
import { sessionRunConfig } from '../session/session-config.js';
import { SessionError } from '../session/session-error.js';
import { SessionHost } from '../session/session-host.js';
import { OBSERVATION_PROFILES } from '../session/wire-schemas.js';
import { attachWsEndpoint } from '../ws/ws-endpoint.js';
import { liveSandboxCount } from './live-sandboxes.js';
import type { McpGateway } from './mcp-gateway.js';
import { ServeRecorder } from './serve-recorder.js';
import type { ServerContext, ServerLimits } from './server-context.js';
import {
  DEFAULT_DATASET,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_TURNS,
  DEFAULT_PING_INTERVAL_MS,
  DEFAULT_PORT,
  DEFAULT_STEP_TIMEOUT_MS,
  defaultMaxSessions,
  isLoopback,
  type ServerOptions,
} from './server-options.js';

/** A server listening. */
export interface RunningServer {
  /** `http://host:port` (the WebSocket endpoint is `ws://host:port/ws`). */
  readonly url: string;
  readonly host: string;
  /** The bound port (the real one when 0 was asked). */
  readonly port: number;
  readonly maxSessions: number;
  /** The session layer (for tests and embedding: counts, sessions). */
  readonly sessions: SessionHost;
  /** The run directories of `outDir`, when episodes are recorded. */
  readonly recorder: ServeRecorder | undefined;
  /**
   * Graceful stop: no new connections, every session closed (WS close 1001), every opened run
   * closed and every sandbox reaped. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Starts the environment server (docs/server/README.md). Every option is checked and the default
 * configuration opened (dataset loaded, sandbox backend or database engine checked) before it
 * listens: a setup that cannot work is one UsageError (or the run setup's error), not a failing
 * first request.
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? (options.token !== undefined ? '0.0.0.0' : '127.0.0.1');
  const port = options.port ?? DEFAULT_PORT;
  const limits: ServerLimits = {
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    stepTimeoutMs: options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    pingIntervalMs: options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS,
  };
  const maxSessions = options.maxSessions ?? defaultMaxSessions();
  checkOptions(options, { host, port, maxSessions, limits });
  const defaults: ServerEnvDefaults = {
    dataset: options.dataset ?? DEFAULT_DATASET,
    maxTurns: options.maxTurns ?? DEFAULT_MAX_TURNS,
    observationProfile: options.observationProfile ?? 'default',
    ...(options.backend !== undefined ? { backend: options.backend } : {}),
    ...(options.image !== undefined ? { image: options.image } : {}),
    ...(options.engine !== undefined ? { engine: options.engine } : {}),
    ...(options.dbUrl !== undefined ? { dbUrl: options.dbUrl } : {}),
  };
  const registries = options.registries ?? { datasets: createDatasetRegistry(), envs: createEnvRegistry() };
  if (options.append && options.outDir === undefined) throw new UsageError('--append needs --out');
  if (options.outDir !== undefined && options.outDir.trim() === '')
    throw new UsageError('--out must not be empty');
  const recorder =
    options.outDir !== undefined
      ? new ServeRecorder(options.outDir, { append: options.append === true, defaults, registries })
      : undefined;
  const sessionHost = new SessionHost({
    defaults,
    maxSessions,
    idleTimeoutMs: limits.idleTimeoutMs,
    stepTimeoutMs: limits.stepTimeoutMs,
    ...(options.maxConcurrentSteps !== undefined ? { maxConcurrentSteps: options.maxConcurrentSteps } : {}),
    registries,
    ...(recorder ? { onEpisodeEnd: (ended) => recorder.record(ended) } : {}),
  });
  try {
    await openDefaultRun(sessionHost);
  } catch (error) {
    await sessionHost.close();
    recorder?.close();
    throw error;
  }
  let shuttingDown = false;
  // MCP tools on `/mcp` and in WS `mcp` frames unless the caller brings its own gateway.
  const mcp: McpGateway = options.mcp ?? new McpToolGateway({ version: packageVersion() });
  const context: ServerContext = {
    host: sessionHost,
    limits,
    token: options.token,
    version: packageVersion(),
    mcp,
    get shuttingDown() {
      return shuttingDown;
    },
    liveSandboxes: () => liveSandboxCount(),
  };
  const table = new RouteTable();
  addOpenEnvRoutes(table, context);
  addIntercodeRoutes(table, context);
  addMcpRoute(table, context);
  // Slowloris: a request must send its headers within 10 s and finish within 30 s; connections are
  // checked every second (the interval is fixed when the server is made).
  const server = createServer(
    { keepAlive: true, headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1000 },
    httpDispatcher(table, context),
  );
  const ws = attachWsEndpoint(server, context);
  let bound: number;
  try {
    bound = await listen(server, host, port);
  } catch (error) {
    await ws.close();
    await sessionHost.close();
    recorder?.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${bound}`,
    host,
    port: bound,
    maxSessions,
    sessions: sessionHost,
    recorder,
    close: () => {
      closing ??= (async () => {
        shuttingDown = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await sessionHost.sessions.closeAll();
        await ws.close();
        await sessionHost.close();
        await mcp.close?.();
        // Every episode in flight was cut (and recorded) by now: the summaries are complete.
        recorder?.close();
        server.closeIdleConnections();
        const cut = setTimeout(() => server.closeAllConnections(), 2000);
        await stopped;
        clearTimeout(cut);
      })();
      return closing;
    },
  };
}

/**
 * Opens the server's default configuration, so `--dataset`, `--engine`, `--backend`, `--image` are
 * checked now; a setting that does not apply to the default dataset is refused (never ignored).
 */
async function openDefaultRun(host: SessionHost): Promise<void> {
  const { defaults } = host;
  try {
    const config = sessionRunConfig({}, defaults, host.registries);
    const sql = {
      ...config.sql,
      ...(defaults.engine ? { engine: defaults.engine } : {}),
      ...(defaults.dbUrl ? { dbUrl: defaults.dbUrl } : {}),
    };
    const sandbox = {
      ...config.sandbox,
      ...(defaults.backend ? { backend: defaults.backend } : {}),
      ...(defaults.image ? { image: defaults.image } : {}),
    };
    await planRun(
      {
        ...config,
        ...(Object.keys(sql).length > 0 ? { sql: sql as RunConfig['sql'] } : {}),
        ...(Object.keys(sandbox).length > 0 ? { sandbox } : {}),
      },
      host.registries,
    );
    await host.pool.pin(config);
  } catch (error) {
    // A refused setting is the operator's: one line naming the flag, as the CLI gives it.
    if (error instanceof SessionError) throw new UsageError(error.message);
    if (IntercodeError.isInstance(error) && error.code === 'REGISTRY_UNKNOWN')
      throw new UsageError(`--backend: ${error.message}`);
    throw error;
  }
}

function checkOptions(
  options: ServerOptions,
  resolved: { host: string; port: number; maxSessions: number; limits: ServerLimits },
): void {
  const { host, port, maxSessions, limits } = resolved;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port must be an integer from 0 to 65535, got ${port}`);
  }
  if (options.token !== undefined && options.token.trim() === '')
    throw new UsageError('--token must not be empty');
  if (options.token === undefined && !isLoopback(host)) {
    throw new UsageError(
      `--host ${host} is reachable from other machines: give a token (--token or INTERCODE_SERVER_TOKEN), or bind 127.0.0.1`,
    );
  }
  if (!Number.isInteger(maxSessions) || maxSessions < 1) {
    throw new UsageError(`--max-sessions must be a positive integer, got ${maxSessions}`);
  }
  for (const [flag, value] of [
    ['--idle-timeout', limits.idleTimeoutMs],
    ['--step-timeout', limits.stepTimeoutMs],
  ] as const) {
    if (!(value > 0) || !Number.isFinite(value))
      throw new UsageError(`${flag} must be a positive number of seconds`);
  }
  if (!Number.isInteger(limits.maxMessageBytes) || limits.maxMessageBytes < 1024) {
    throw new UsageError(
      `--max-message-bytes must be an integer of at least 1024, got ${limits.maxMessageBytes}`,
    );
  }
  const steps = options.maxConcurrentSteps;
  if (steps !== undefined && (!Number.isInteger(steps) || steps < 1)) {
    throw new UsageError(`maxConcurrentSteps must be a positive integer, got ${steps}`);
  }
  if (!(limits.pingIntervalMs > 0)) throw new UsageError('the ping interval must be positive');
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isInteger(maxTurns) || maxTurns < 1)
    throw new UsageError(`--max-turns must be a positive integer, got ${maxTurns}`);
  const profile = options.observationProfile ?? 'default';
  if (!OBSERVATION_PROFILES.includes(profile)) {
    throw new UsageError(
      `--observation-profile must be one of ${OBSERVATION_PROFILES.join(', ')}, got "${profile}"`,
    );
  }
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new UsageError(`--port ${port}: the address ${host}:${port} is already in use`)
          : error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND'
            ? new UsageError(`--host ${host}: not an address of this machine`)
            : error,
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

let version: string | undefined;
/** The package's version, read once from its package.json. */
function packageVersion(): string {
  version ??= (
    JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return version;
}
