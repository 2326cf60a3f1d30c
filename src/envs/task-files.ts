import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { SandboxError } from '../core/errors.js';
import { shellQuote } from '../core/shell-quote.js';
import type { ExecResult, Sandbox } from '../sandbox/sandbox.js';
import type { TaskFile } from './define-environment.js';

/** A host folder as a tar archive (modes kept, owners dropped), with `exclude` names left out. */
function tarOf(folder: string, exclude: readonly string[]): Promise<Buffer> {
  const args = ['-C', folder, '--owner=0', '--group=0', '--numeric-owner'];
  for (const name of exclude) args.push(`--exclude=${name}`);
  args.push('-cf', '-', '.');
  return new Promise((resolve, reject) => {
    execFile('tar', args, { encoding: 'buffer', maxBuffer: 1024 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        reject(
          new SandboxError(
            'SANDBOX_IO',
            `cannot pack ${folder}: ${stderr.toString().trim() || error.message}`,
          ),
        );
      } else resolve(stdout);
    });
  });
}

/** Packed folders by folder and exclusions: task assets do not change during a run. */
const archives = new Map<string, Promise<Buffer>>();
let cachedBytes = 0;
const CACHE_LIMIT_BYTES = 256 * 1024 * 1024;

function cachedTarOf(folder: string, exclude: readonly string[]): Promise<Buffer> {
  const key = JSON.stringify([folder, exclude]);
  const cached = archives.get(key);
  if (cached) return cached;
  const archive = tarOf(folder, exclude);
  archives.set(key, archive);
  archive.then(
    (bytes) => {
      cachedBytes += bytes.length;
      if (cachedBytes > CACHE_LIMIT_BYTES) {
        archives.clear();
        cachedBytes = 0;
      }
    },
    () => archives.delete(key),
  );
  return archive;
}

/** Up to this size, bytes travel through the persistent shell (no new sandbox process: ~1 ms, not ~40). */
const INLINE_LIMIT_BYTES = 1024 * 1024;

/** Runs `command` with `data` on its standard input, inline in the shell when small. */
async function runWithInput(sandbox: Sandbox, command: string, data: Uint8Array): Promise<ExecResult> {
  if (data.length <= INLINE_LIMIT_BYTES) {
    const encoded = Buffer.from(data)
      .toString('base64')
      .replace(/.{1,76}/g, '$&\n');
    return sandbox
      .session()
      .run(`base64 -d <<'__INTERCODE_DATA__' | { ${command}; }\n${encoded}__INTERCODE_DATA__`, {
        timeoutMs: 60_000,
      });
  }
  return sandbox.exec(command, { stdin: data, timeoutMs: 60_000 });
}

/**
 * Copies host files and folders into a sandbox: a folder as one tar archive unpacked by `tar` inside the
 * sandbox (so the image needs `tar`), a file as it is; modes are kept. Small payloads go through the
 * sandbox's persistent shell, large ones through a separate process.
 */
export async function copyTaskFiles(sandbox: Sandbox, files: readonly TaskFile[]): Promise<void> {
  for (const file of files) {
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(file.from);
    } catch {
      throw new SandboxError('SANDBOX_IO', `task file ${file.from} does not exist`);
    }
    if (!file.to.startsWith('/')) {
      throw new SandboxError('SANDBOX_IO', `task file target must be an absolute path: ${file.to}`);
    }
    const target = shellQuote(file.to);
    const result = stats.isDirectory()
      ? await runWithInput(
          sandbox,
          `mkdir -p -- ${target} && tar -xf - -C ${target} --no-same-owner`,
          await cachedTarOf(file.from, file.exclude ?? []),
        )
      : await runWithInput(
          sandbox,
          `mkdir -p -- "$(dirname -- ${target})" && cat > ${target} && chmod ${(stats.mode & 0o7777).toString(8)} -- ${target}`,
          readFileSync(file.from),
        );
    if (result.exitCode !== 0) {
      throw new SandboxError(
        'SANDBOX_IO',
        `cannot copy ${file.from} to ${file.to}: ${result.output.trim() || `exit ${result.exitCode}`}`,
      );
    }
  }
}
