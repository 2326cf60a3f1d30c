import { DatasetError } from '../core/errors.js';
import type { DatasetSpec } from './dataset-spec.js';
import { fetchUpstreamFiles } from './fetch-upstream-files.js';
import { unavailableReason, upstreamFile } from './upstream-files.js';
import { loadUpstreamTasks } from './upstream-tasks.js';

/** SQL datasets: tasks keep `db` (and Spider's `db_tables`) in meta; assets hold `databaseDump` (MySQL dump). */
interface SqlSource {
  readonly id: string;
  readonly description: string;
  readonly count: number;
  readonly tasks: string;
  readonly dump: string;
  readonly groupField?: string;
}

const SOURCES: readonly SqlSource[] = [
  {
    id: 'spider/dev',
    description: 'Spider dev set: text-to-SQL over 20 databases, grouped by hardness',
    count: 1034,
    tasks: 'data/sql/spider/ic_spider_dev.json',
    dump: 'data/sql/spider/ic_spider_dbs.sql',
    groupField: 'hardness',
  },
  {
    id: 'wikisql/dev',
    description: 'WikiSQL dev subset: single-table questions',
    count: 196,
    tasks: 'data/sql/wikisql/ic_wikisql_dev.json',
    dump: 'data/sql/wikisql/ic_wikisql_dev.sql',
  },
  {
    id: 'bird/dev',
    description: 'BIRD dev subset over 3 databases, grouped by difficulty',
    count: 338,
    tasks: 'data/sql/bird/ic_bird.json',
    dump: 'data/sql/bird/ic_bird_dbs.sql',
    groupField: 'difficulty',
  },
];

function sqlSpec(source: SqlSource): DatasetSpec {
  const needed = [source.tasks, source.dump];
  const unavailable = unavailableReason(needed);
  const { groupField } = source;
  return {
    id: source.id,
    env: 'sql',
    description: source.description,
    taskCount: source.count,
    ...(groupField ? { groupBy: groupField } : {}),
    files: needed.filter((path) => upstreamFile(path)),
    builtIn: false,
    ...(unavailable ? { unavailable } : {}),
    async load() {
      if (unavailable) {
        throw new DatasetError('DATASET_UNAVAILABLE', `dataset ${source.id} cannot load: ${unavailable}`);
      }
      const local = await fetchUpstreamFiles(needed);
      const tasks = await loadUpstreamTasks(source.tasks, {
        ...(groupField ? { group: (record) => String(record[groupField] ?? '') || undefined } : {}),
      });
      return { id: source.id, env: 'sql', tasks, assets: { databaseDump: local[source.dump]! } };
    },
  };
}

/** `spider/dev`, `wikisql/dev` and `bird/dev` (which reports that its dump is not available). */
export function sqlDatasets(): DatasetSpec[] {
  return SOURCES.map(sqlSpec);
}
