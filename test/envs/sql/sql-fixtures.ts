/**
 * @deprecated The old home of the SQL test helpers, kept so that imports not yet converted still work:
 * use `test/support/sql-mirror.ts` and the temporary-folder fixtures of `test/support/fixtures.ts`.
 */
export { MIRROR } from '../../support/project.js';
export {
  MIRROR_PRESENT,
  mirrorDump,
  SPIDER_DUMP,
  SPIDER_TASKS,
  WIKISQL_DUMP,
} from '../../support/sql-mirror.js';
export { temporaryDir } from '../../support/temp-dirs.js';
