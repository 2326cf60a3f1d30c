import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { SandboxError } from '../../core/errors.js';

export interface BuildStepOptions {
  /** The build log every line is appended to. */
  readonly log: string;
  readonly stdin?: string;
  /** The step's output, one line at a time. */
  readonly onProgress?: (line: string) => void;
  /** Aborting kills the step's process group. */
  readonly signal?: AbortSignal;
}

/** Runs a build step in its own process group, its stderr as progress, killed on abort. */
export function runBuildStep(
  command: string,
  args: readonly string[],
  options: BuildStepOptions,
): Promise<void> {
  return new Promise((resolve, reject) => {
    appendFileSync(options.log, `$ ${command} ${args.join(' ')}\n`);
    const child: ChildProcess = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      env: { ...process.env, LC_ALL: 'C.UTF-8', DEBIAN_FRONTEND: 'noninteractive' },
    });
    let tail = '';
    let pending = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      appendFileSync(options.log, text);
      tail = (tail + text).slice(-4000);
      pending += text;
      const lines = pending.split(/\r?\n|\r/);
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') options.onProgress?.(line);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    const abort = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
      setTimeout(() => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, 10_000).unref();
    };
    options.signal?.addEventListener('abort', abort, { once: true });
    child.on('error', (error) => {
      options.signal?.removeEventListener('abort', abort);
      reject(
        new SandboxError('SANDBOX_UNAVAILABLE', `cannot run ${command}: ${error.message}`, { cause: error }),
      );
    });
    child.on('close', (code, signal) => {
      options.signal?.removeEventListener('abort', abort);
      if (options.signal?.aborted) {
        reject(new SandboxError('SANDBOX_START_FAILED', 'image build interrupted'));
      } else if (code === 0) {
        resolve();
      } else {
        const last = firstError(options.log) ?? tail.trim().split('\n').filter(Boolean).slice(-1)[0] ?? '';
        reject(
          new SandboxError(
            'SANDBOX_START_FAILED',
            `${command} failed (${signal ?? `exit ${code}`}): ${last} (log: ${options.log.replace(/\.tmp-[^/]*\.log$/, '.failed.log')})`,
          ),
        );
      }
    });
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.stdin ?? '');
  });
}

/** The first line of a build log that says what failed (a package dpkg could not set up, an apt error). */
function firstError(log: string): string | undefined {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  return (
    lines.find((line) => /^dpkg: error processing package /.test(line)) ??
    lines.find((line) => /^E: /.test(line) && !/mmdebstrap failed to run/.test(line))
  )?.trim();
}
