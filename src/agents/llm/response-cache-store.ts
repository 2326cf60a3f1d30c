import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../core/errors.js';
import { tokenUsageSchema } from '../../core/run-files/episode-record-schema.js';
import type { ModelResponse, RequestContext } from './model-client.js';

/** The `schemaVersion` of the entries this build writes; an entry of another version is a miss. */
const ENTRY_VERSION = 1;

const toolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  argumentsText: z.string(),
});

/** A stored answer: the response as the client returned it, `cached` left out. */
const storedResponseSchema = z.object({
  text: z.string(),
  reasoning: z.string().optional(),
  toolCalls: z.array(toolCallSchema),
  finishReason: z.string(),
  usage: tokenUsageSchema,
  latencyMs: z.number(),
  retries: z.array(z.object({ attempt: z.number(), reason: z.string(), waitMs: z.number() })),
  modelId: z.string().optional(),
  warnings: z.array(z.string()).optional(),
});

/**
 * One file of the cache: the key it answers (checked on read, so a file renamed by hand or a
 * partial copy is not trusted), the model, where the first request came from (for a person
 * reading the cache), when, and the answer.
 */
const entrySchema = z.object({
  schemaVersion: z.literal(ENTRY_VERSION),
  key: z.string(),
  model: z.string(),
  context: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.string(),
  response: storedResponseSchema,
});

/** What reading an entry found. */
export type CacheRead =
  | { readonly kind: 'hit'; readonly response: ModelResponse }
  | { readonly kind: 'miss' }
  /** The file exists but is not a whole, valid entry for this key (it will be replaced). */
  | { readonly kind: 'corrupt' };

/**
 * The files of a response cache: `<dir>/<first two hex digits>/<key>.json`, one per answer.
 * Writes are atomic (a temporary file of a unique name, flushed to disk, then renamed over the
 * entry), so concurrent workers, in one process or several, read either nothing or a whole entry;
 * two writers of one key both write whole entries and the last rename wins.
 */
export class ResponseCacheStore {
  readonly dir: string;

  /** Creates `dir` when missing; throws a one-line `UsageError` when it cannot be used. */
  constructor(dir: string) {
    try {
      mkdirSync(dir, { recursive: true });
      accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new UsageError(`--cache ${dir}: the folder cannot be created or written (${code})`, {
        cause: error,
      });
    }
    this.dir = dir;
  }

  /** The file of `key`. */
  pathOf(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /** Reads the entry of `key`: a hit, a miss, or a corrupt file (unreadable, truncated, invalid). */
  async read(key: string): Promise<CacheRead> {
    let text: string;
    try {
      text = await readFile(this.pathOf(key), 'utf8');
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'miss' } : { kind: 'corrupt' };
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { kind: 'corrupt' };
    }
    const entry = entrySchema.safeParse(value);
    if (!entry.success || entry.data.key !== key) return { kind: 'corrupt' };
    const { reasoning, modelId, warnings, toolCalls, ...rest } = entry.data.response;
    const response: ModelResponse = {
      ...rest,
      // A call's arguments that were not valid JSON were stored without them (`undefined`).
      toolCalls: toolCalls.map((call) => ({ ...call, arguments: call.arguments })),
      ...(reasoning !== undefined ? { reasoning } : {}),
      ...(modelId !== undefined ? { modelId } : {}),
      ...(warnings !== undefined ? { warnings } : {}),
    };
    return { kind: 'hit', response };
  }

  /** Writes the answer of `key` atomically (temporary file, fsync, rename, fsync of the folder). */
  async write(key: string, model: string, context: RequestContext, response: ModelResponse): Promise<void> {
    const { cached: _cached, ...stored } = response;
    const entry = {
      schemaVersion: ENTRY_VERSION,
      key,
      model,
      context,
      createdAt: new Date().toISOString(),
      response: stored,
    };
    const path = this.pathOf(key);
    const folder = join(this.dir, key.slice(0, 2));
    await mkdir(folder, { recursive: true });
    const temporary = `${path}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
    try {
      const file = await open(temporary, 'wx');
      try {
        await file.writeFile(`${JSON.stringify(entry)}\n`);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await syncFolder(folder);
  }
}

/** Flushes a folder's entries (the rename) to disk; a file system that cannot is left as it is. */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse fsync on a folder; the entry is whole either way.
  }
}
