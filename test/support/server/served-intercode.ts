import type { CliResult, StartedCli } from '../cli-runner.js';
import { startIntercode } from '../cli-runner.js';
import { liveSandboxes, rssBytes } from './process-tree.js';

/** `intercode serve` running in a child process started by a test. */
export interface ServedIntercode {
  /** http://127.0.0.1:<port> (loopback even when the server listens on every interface). */
  readonly url: string;
  /** ws://127.0.0.1:<port>/ws */
  readonly wsUrl: string;
  readonly port: number;
  /** The node process that serves (it owns the sandboxes). */
  readonly pid: number;
  /** The line the server printed when it started listening. */
  readonly banner: string;
  readonly cli: StartedCli;
  /** Its resident memory now, in bytes. */
  rss(): number;
  /** Its live sandboxes now (bwrap processes below it, read from /proc). */
  sandboxes(): number;
  /** What it wrote so far. */
  output(): { stdout: string; stderr: string };
  /** SIGTERM, then waits for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<CliResult>;
}

const LISTENING = /listening on http:\/\/([^\s:/]+|\[[^\]]+\]):(\d+)/;

/**
 * Starts `intercode serve --port 0 <args>` (the compiled CLI, as a user runs it) and waits for the
 * line that says where it listens; rejects with its output when it exits first.
 */
export async function serveIntercode(
  args: readonly string[],
  options: { cache: string; env?: Readonly<Record<string, string>>; startMs?: number },
): Promise<ServedIntercode> {
  const cli = startIntercode(['serve', '--port', '0', ...args], {
    cache: options.cache,
    ...(options.env ? { env: options.env } : {}),
  });
  let stdout = '';
  let stderr = '';
  cli.child.stdout!.on('data', (chunk: string) => {
    stdout += chunk;
  });
  cli.child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const started = await new Promise<{ banner: string; port: number }>((resolve, reject) => {
    const timer = setTimeout(() => {
      cli.child.kill('SIGKILL');
      reject(new Error(`intercode serve did not say where it listens in time:\n${stdout}\n${stderr}`));
    }, options.startMs ?? 60_000);
    const look = (): void => {
      const match = LISTENING.exec(stdout) ?? LISTENING.exec(stderr);
      if (!match) return;
      clearTimeout(timer);
      const line = (stdout + stderr).split('\n').find((text) => LISTENING.test(text)) ?? match[0];
      resolve({ banner: line, port: Number(match[2]) });
    };
    cli.child.stdout!.on('data', look);
    cli.child.stderr!.on('data', look);
    void cli.done.then((result) => {
      clearTimeout(timer);
      reject(
        new Error(
          `intercode serve exited (${result.status ?? result.signal}) before listening:\n${stdout}\n${stderr}`,
        ),
      );
    });
  });
  const pid = cli.child.pid!;
  const url = `http://127.0.0.1:${started.port}`;
  return {
    url,
    wsUrl: `ws://127.0.0.1:${started.port}/ws`,
    port: started.port,
    pid,
    banner: started.banner,
    cli,
    rss: () => rssBytes(pid),
    sandboxes: () => liveSandboxes(pid),
    output: () => ({ stdout, stderr }),
    async stop(graceMs = 30_000) {
      if (cli.child.exitCode === null && cli.child.signalCode === null) {
        cli.child.kill('SIGTERM');
        const timer = setTimeout(() => cli.child.kill('SIGKILL'), graceMs);
        const result = await cli.done;
        clearTimeout(timer);
        return result;
      }
      return cli.done;
    },
  };
}
