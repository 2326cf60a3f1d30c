import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DumpModel } from '../../src/sql/dump/dump-model.js';
import { parseMysqlDump } from '../../src/sql/dump/parse-mysql-dump.js';
import { MIRROR } from './project.js';

export const SPIDER_DUMP = join(MIRROR, 'data/sql/spider/ic_spider_dbs.sql');
export const SPIDER_TASKS = join(MIRROR, 'data/sql/spider/ic_spider_dev.json');
export const WIKISQL_DUMP = join(MIRROR, 'data/sql/wikisql/ic_wikisql_dev.sql');

/** Whether the SQL files of the mirror are there (the suites that need them are skipped otherwise). */
export const MIRROR_PRESENT = existsSync(SPIDER_DUMP) && existsSync(WIKISQL_DUMP);

const parsed = new Map<string, DumpModel>();

/** A dump of the mirror, parsed once per test file. */
export function mirrorDump(path: string): DumpModel {
  let model = parsed.get(path);
  if (!model) {
    model = parseMysqlDump(readFileSync(path, 'utf8'));
    parsed.set(path, model);
  }
  return model;
}
