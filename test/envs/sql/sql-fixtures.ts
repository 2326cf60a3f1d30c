import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DumpModel } from '../../../src/sql/dump/dump-model.js';
import { parseMysqlDump } from '../../../src/sql/dump/parse-mysql-dump.js';

const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The local mirror of the upstream data: $INTERCODE_DATA_MIRROR, or ../shared/datasets/intercode. */
export const MIRROR =
  process.env.INTERCODE_DATA_MIRROR || resolve(projectRoot, '../shared/datasets/intercode');

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

/** A fresh temporary directory and the function that removes it. */
export function temporaryDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `intercode-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
