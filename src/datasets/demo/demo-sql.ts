import type { Task } from '../../core/task.js';
import { builtinFile } from '../builtin-file.js';
import type { DatasetSpec } from '../dataset-spec.js';
import { DEMO_SQL_DUMP } from './demo-sql-dump.js';
import { DEMO_SQL_TASKS } from './demo-sql-tasks.js';

/**
 * `demo/sql`: text-to-SQL tasks written for intercode over its own small database
 * (`harbor_logistics`: ports, ships, crew, voyages, cargo), shipped inside the package so it runs
 * offline on every engine. Tasks keep `db` and `db_tables` in meta, as Spider's; the asset
 * `databaseDump` is the embedded MySQL dump, written to the cache.
 */
export function demoSqlDataset(): DatasetSpec {
  return {
    id: 'demo/sql',
    env: 'sql',
    description:
      'built-in SQL tasks (filters, aggregates, joins, subqueries, set operations) on a small shipping database',
    taskCount: DEMO_SQL_TASKS.length,
    groupBy: 'kind',
    files: [],
    builtIn: true,
    async load() {
      const databaseDump = builtinFile('demo-sql-harbor-logistics.sql', DEMO_SQL_DUMP);
      const tasks: Task[] = DEMO_SQL_TASKS.map((task, index) => ({
        id: task.id,
        index,
        query: task.query,
        gold: task.gold,
        group: task.group,
        meta: { db: task.db, db_tables: task.db_tables },
      }));
      return { id: 'demo/sql', env: 'sql', tasks, assets: { databaseDump } };
    },
  };
}
