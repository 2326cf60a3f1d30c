import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { DatasetError } from '../core/errors.js';
import type { UpstreamFile } from './upstream-files.js';
import { sourceLocation, sourceName, type UpstreamSource } from './upstream-source.js';

/** A download that receives no byte for this long is abandoned. */
const IDLE_TIMEOUT_MS = 60_000;

function downloadError(message: string, cause?: unknown): DatasetError {
  return new DatasetError('DATASET_DOWNLOAD', message, cause === undefined ? undefined : { cause });
}

function openDirectory(file: UpstreamFile, source: UpstreamSource & { kind: 'dir' }): Readable {
  const location = sourceLocation(source, file.path);
  let isFile = false;
  try {
    isFile = statSync(location).isFile();
  } catch {
    // reported below
  }
  if (!isFile) throw downloadError(`${sourceName(source)} has no ${file.path}`);
  return createReadStream(location);
}

async function openUrl(
  file: UpstreamFile,
  source: UpstreamSource & { kind: 'url' },
  signal: AbortSignal,
): Promise<Readable> {
  const location = sourceLocation(source, file.path);
  let response: Response;
  try {
    response = await fetch(location, { signal, redirect: 'follow' });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw downloadError(`could not download ${file.path} from ${location}: ${reason}`, error);
  }
  if (response.status === 404) {
    await response.body?.cancel();
    throw downloadError(`${sourceName(source)} has no ${file.path} (HTTP 404 for ${location})`);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw downloadError(`could not download ${file.path} from ${location}: HTTP ${response.status}`);
  }
  return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
}

/**
 * Copies one upstream file from `source` into `temporary`, checking its size while it streams and its
 * SHA-256 at the end. Throws a one-line DatasetError naming the file and what was wrong; the caller
 * moves `temporary` into place on success and deletes it on failure, once this has settled.
 */
export async function downloadVerified(
  file: UpstreamFile,
  source: UpstreamSource,
  temporary: string,
): Promise<void> {
  const controller = new AbortController();
  let idle: NodeJS.Timeout | undefined;
  const armIdleTimer = (): void => {
    clearTimeout(idle);
    idle = setTimeout(() => controller.abort(new Error('no data for 60 s')), IDLE_TIMEOUT_MS);
  };
  const hash = createHash('sha256');
  let size = 0;
  const what = `${file.path} from ${sourceName(source)}`;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      armIdleTimer();
      size += chunk.length;
      if (size > file.size) {
        done(
          downloadError(`${what} is corrupt: more than the pinned ${file.size} bytes; nothing was cached`),
        );
        return;
      }
      hash.update(chunk);
      done(null, chunk);
    },
  });
  armIdleTimer();
  // Waited for until closed before this returns: after a failure the stream may still be opening
  // the file, and the caller deletes `temporary` once this settles, so nothing may create it after.
  const output = createWriteStream(temporary);
  try {
    const input =
      source.kind === 'dir' ? openDirectory(file, source) : await openUrl(file, source, controller.signal);
    await pipeline(input, meter, output, {
      signal: controller.signal,
    });
  } catch (error) {
    if (error instanceof DatasetError) throw error;
    const reason = controller.signal.aborted
      ? String(controller.signal.reason?.message)
      : (error as Error).message;
    throw downloadError(`could not download ${what}: ${reason.split('\n')[0]}`, error);
  } finally {
    clearTimeout(idle);
    output.destroy();
    if (!output.closed) await once(output, 'close');
  }
  if (size !== file.size) {
    throw downloadError(
      `${what} is incomplete or corrupt: ${size} bytes, expected ${file.size}; nothing was cached`,
    );
  }
  const sha256 = hash.digest('hex');
  if (sha256 !== file.sha256) {
    throw downloadError(
      `${what} does not match its pinned SHA-256 (got ${sha256.slice(0, 12)}…, expected ${file.sha256.slice(0, 12)}…); nothing was cached`,
    );
  }
}
