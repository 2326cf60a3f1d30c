import { join } from 'node:path';
import { DatasetError } from '../../core/errors.js';
import { cacheDir } from '../../core/host/cache-dir.js';
import { readMysqlDump } from '../../sql/dump/read-mysql-dump.js';
import { createSqlEngine } from '../../sql/engine/create-sql-engine.js';
import type { EnvFactory, EnvOpenOptions, SqlEnvConfig } from '../env-definition.js';
import { SqlEnv } from './sql-env.js';

/** Starts (or connects) the engine of a run, loads the dataset's databases, and makes SQL envs on it. */
export async function openSqlEnvs({
  dataset,
  config,
  actionTimeoutMs,
  concurrency,
}: EnvOpenOptions<SqlEnvConfig>): Promise<EnvFactory> {
  const dump = dataset.assets.databaseDump;
  if (!dump) throw new DatasetError('DATASET_INVALID', `dataset ${dataset.id} has no database dump`);
  // Read while the server starts; a server engine of its own starts on the cached loaded data.
  const model = readMysqlDump(dump, { cacheDir: join(cacheDir(), 'sql', 'dumps') });
  model.catch(() => {});
  const engine = await createSqlEngine(config.engine ?? 'sqlite', config.dbUrl, model, concurrency);
  try {
    await engine.prepare(await model);
  } catch (error) {
    await engine.close();
    throw error;
  }
  return {
    engine: engine.id,
    create: () =>
      new SqlEnv({
        dataset,
        engine,
        ...(actionTimeoutMs ? { actionTimeoutMs } : {}),
        ...(config.handicap ? { handicap: true } : {}),
      }),
    close: () => engine.close(),
  };
}
