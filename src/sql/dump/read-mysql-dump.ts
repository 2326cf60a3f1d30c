import { readFile } from 'node:fs/promises';
import type { DumpModel } from './dump-model.js';
import { parseMysqlDump } from './parse-mysql-dump.js';

/** Reads and parses a MySQL dump file (UTF-8), e.g. a dataset's `databaseDump` asset. */
export async function readMysqlDump(path: string): Promise<DumpModel> {
  return parseMysqlDump(await readFile(path, 'utf8'));
}
