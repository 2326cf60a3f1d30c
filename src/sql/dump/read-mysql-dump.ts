import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { writeFileAtomic } from '../../core/host/atomic-write.js';
import { sourceFingerprint } from '../../core/host/source-fingerprint.js';
import type { DumpModel, DumpTable } from './dump-model.js';
import { parseMysqlDump } from './parse-mysql-dump.js';

/** Options of {@link readMysqlDump}. */
export interface ReadDumpOptions {
  /**
   * Where parsed dumps are kept (`<dir>/<text sha-256>-<parser fingerprint>.v8`), so the next run
   * skips the parse; none: parse every time.
   */
  readonly cacheDir?: string;
}

/**
 * Reads and parses a MySQL dump file (UTF-8), e.g. a dataset's `databaseDump` asset.
 *
 * With a cache folder, the parsed model is kept there, keyed by the dump text and by the parser's own
 * code (a changed parser never reads an old model). A cached model is read in two steps: the
 * databases and tables at once (a few milliseconds for Spider's 412 KB dump, against some 200 ms of
 * parsing), their rows only when something first asks for them (an engine building a database it
 * has not cached yet). A cache that cannot be read or written is ignored: the dump is parsed.
 */
export async function readMysqlDump(path: string, options: ReadDumpOptions = {}): Promise<DumpModel> {
  const bytes = await readFile(path);
  if (options.cacheDir === undefined) return parseMysqlDump(bytes.toString('utf8'));
  const key = `${createHash('sha256').update(bytes).digest('hex')}-${parserFingerprint()}`;
  const file = join(options.cacheDir, `${key}.v8`);
  const cached = readCached(file);
  if (cached) return cached;
  const model = parseMysqlDump(bytes.toString('utf8'));
  try {
    writeFileAtomic(file, encode(model));
  } catch {
    // A read-only or full cache only costs the next run the parse.
  }
  return model;
}

/**
 * Cache file: the SHA-256 of the rest (a torn or damaged file is never used), the length of the
 * model without its rows (4 bytes), that model, then every table's rows (V8 serialisation).
 */
function encode(model: DumpModel): Buffer {
  const rows: DumpTable['rows'][] = [];
  const head = {
    ...model,
    databases: model.databases.map((database) => ({
      ...database,
      tables: database.tables.map((table) => {
        rows.push(table.rows);
        return { ...table, rows: [] };
      }),
    })),
  };
  const headBytes = serialize(head);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(headBytes.length);
  const body = Buffer.concat([length, headBytes, serialize(rows)]);
  return Buffer.concat([createHash('sha256').update(body).digest(), body]);
}

/** The cached model, or undefined when there is none or it is damaged. */
function readCached(file: string): DumpModel | undefined {
  try {
    const stored = readFileSync(file);
    const bytes = stored.subarray(32);
    if (!createHash('sha256').update(bytes).digest().equals(stored.subarray(0, 32))) return undefined;
    const headLength = bytes.readUInt32LE(0);
    const model = deserialize(bytes.subarray(4, 4 + headLength)) as DumpModel;
    let rows: DumpTable['rows'][] | undefined;
    const allRows = () => {
      rows ??= deserialize(bytes.subarray(4 + headLength)) as DumpTable['rows'][];
      return rows;
    };
    let index = 0;
    for (const database of model.databases) {
      for (const table of database.tables) {
        const at = index++;
        Object.defineProperty(table, 'rows', { get: () => allRows()[at], enumerable: true });
      }
    }
    return model;
  } catch {
    return undefined;
  }
}

/** A hash of the dump parser's own files (this folder's modules): a changed parser gets new cache keys. */
export function parserFingerprint(): string {
  return sourceFingerprint(dirname(fileURLToPath(import.meta.url)));
}
