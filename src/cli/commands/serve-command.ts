import { type Command, Option } from 'commander';
import {
  DEFAULT_DATASET,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_TURNS,
  DEFAULT_PORT,
} from '../../server/app/server-options.js';
import { startServer } from '../../server/app/start-server.js';
import { OBSERVATION_PROFILES, type ObservationProfile } from '../../server/session/wire-schemas.js';
import { SQL_ENGINES } from '../../sql/engine/sql-engine-name.js';
import { stopGracefully, untilInterrupted } from '../interrupt.js';
import { backendOption, imageOption, portNumber, positiveInteger, positiveNumber } from '../options.js';

interface ServeFlags {
  host?: string;
  port?: number;
  token?: string;
  maxSessions?: number;
  idleTimeout: number;
  stepTimeout: number;
  pingInterval: number;
  maxMessageBytes: number;
  dataset: string;
  maxTurns: number;
  backend?: string;
  image?: string;
  engine?: string;
  dbUrl?: string;
  observationProfile: ObservationProfile;
  out?: string;
  append?: boolean;
  json?: boolean;
}

/** A flag's value, else its environment variable's (checked with the flag's parser, naming the variable). */
function fromEnv<T>(flag: T | undefined, name: string, parse: (value: string) => T): T | undefined {
  if (flag !== undefined) return flag;
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : parse(value);
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description(
      'serve the environments over the OpenEnv protocol (WebSocket /ws, HTTP) with our /intercode/ extensions',
    )
    .option('--host <host>', 'address to bind (env HOST; default 127.0.0.1, or 0.0.0.0 with a token)')
    .option(
      '--port <port>',
      `port (env PORT; default ${DEFAULT_PORT}; 0 picks a free one)`,
      portNumber('--port'),
    )
    .option('--token <token>', 'bearer token every endpoint but /health needs (env INTERCODE_SERVER_TOKEN)')
    .option(
      '--max-sessions <n>',
      'sessions open at once (env MAX_CONCURRENT_ENVS; default min(32 × cores, free memory / 192 MiB))',
      positiveInteger('--max-sessions'),
    )
    .option(
      '--idle-timeout <seconds>',
      'close a session idle this long',
      positiveNumber('--idle-timeout'),
      600,
    )
    .option(
      '--step-timeout <seconds>',
      'deadline of one reset or step; past it the env is discarded',
      positiveNumber('--step-timeout'),
      50,
    )
    .option(
      '--ping-interval <seconds>',
      'WebSocket keepalive: ping every S seconds; a peer that misses two pongs is dropped',
      positiveNumber('--ping-interval'),
      20,
    )
    .option(
      '--max-message-bytes <n>',
      'largest request body or WebSocket frame',
      positiveInteger('--max-message-bytes'),
      DEFAULT_MAX_MESSAGE_BYTES,
    )
    .option('--dataset <id>', 'dataset of a reset that names none', DEFAULT_DATASET)
    .option(
      '--max-turns <n>',
      'steps before an episode is truncated',
      positiveInteger('--max-turns'),
      DEFAULT_MAX_TURNS,
    )
    .addOption(backendOption())
    .addOption(imageOption())
    .addOption(
      new Option('--engine <engine>', 'SQL engine of SQL datasets (default: sqlite)').choices(SQL_ENGINES),
    )
    .option('--db-url <url>', 'SQL: a mysql:// or postgres:// server to use instead of starting one')
    .addOption(
      new Option(
        '--observation-profile <profile>',
        'observation keys: default, or coding (stdout, stderr, exit_code)',
      )
        .choices(OBSERVATION_PROFILES)
        .default('default'),
    )
    .option(
      '--out <dir>',
      'record every episode played: <dir>/<dataset>[-<setting>]/episodes.jsonl and summary.json, as intercode run writes',
    )
    .option('--append', 'with --out: add to run directories that already hold episodes (else refused)')
    .option('--json', 'print the listening line as JSON')
    .action(async (flags: ServeFlags) => {
      const token = fromEnv(flags.token, 'INTERCODE_SERVER_TOKEN', (value) => value);
      const maxSessions = fromEnv(
        flags.maxSessions,
        'MAX_CONCURRENT_ENVS',
        positiveInteger('MAX_CONCURRENT_ENVS'),
      );
      const listenPort = fromEnv(flags.port, 'PORT', portNumber('PORT'));
      const host = fromEnv(flags.host, 'HOST', (value) => value);
      stopGracefully();
      const server = await startServer({
        ...(host !== undefined ? { host } : {}),
        ...(listenPort !== undefined ? { port: listenPort } : {}),
        ...(token !== undefined ? { token } : {}),
        ...(maxSessions !== undefined ? { maxSessions } : {}),
        idleTimeoutMs: flags.idleTimeout * 1000,
        stepTimeoutMs: flags.stepTimeout * 1000,
        pingIntervalMs: flags.pingInterval * 1000,
        maxMessageBytes: flags.maxMessageBytes,
        dataset: flags.dataset,
        maxTurns: flags.maxTurns,
        ...(flags.backend !== undefined ? { backend: flags.backend } : {}),
        ...(flags.image !== undefined ? { image: flags.image } : {}),
        ...(flags.engine !== undefined ? { engine: flags.engine } : {}),
        ...(flags.dbUrl !== undefined ? { dbUrl: flags.dbUrl } : {}),
        observationProfile: flags.observationProfile,
        ...(flags.out !== undefined ? { outDir: flags.out } : {}),
        ...(flags.append ? { append: true } : {}),
      });
      const wsUrl = `${server.url.replace(/^http/, 'ws')}/ws`;
      process.stdout.write(
        flags.json
          ? `${JSON.stringify({ url: server.url, ws_url: wsUrl, host: server.host, port: server.port, max_sessions: server.maxSessions })}\n`
          : `intercode serve: listening on ${server.url} (${wsUrl}), max ${server.maxSessions} sessions\n`,
      );
      await untilInterrupted();
      await server.close();
      if (!flags.json) process.stderr.write('intercode serve: stopped; every session closed\n');
      if (!flags.json && server.recorder) {
        process.stderr.write(`intercode serve: episodes recorded in ${server.recorder.outDir}\n`);
      }
      process.exitCode = 0;
    });
}
