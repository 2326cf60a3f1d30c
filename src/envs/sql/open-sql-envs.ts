import { DatasetError, UsageError } from '../../core/errors.js';
import { readMysqlDump } from '../../sql/dump/read-mysql-dump.js';
import { createSqlEngine } from '../../sql/engine/create-sql-engine.js';
import type { EnvFactory, EnvOpenOptions } from '../env-definition.js';
import { SqlEnv } from './sql-env.js';

/** Starts (or connects) the engine of a run, loads the dataset's databases, and makes SQL envs on it. */
export async function openSqlEnvs(options: EnvOpenOptions): Promise<EnvFactory> {
  if (options.compat === 'upstream') throw new UsageError('--compat upstream applies to Bash datasets only');
  const dump = options.dataset.assets.databaseDump;
  if (!dump) throw new DatasetError('DATASET_INVALID', `dataset ${options.dataset.id} has no database dump`);
  const engine = await createSqlEngine(options.engine ?? 'sqlite', options.dbUrl);
  try {
    await engine.prepare(await readMysqlDump(dump));
  } catch (error) {
    await engine.close();
    throw error;
  }
  return {
    engine: engine.id,
    create: () =>
      new SqlEnv({
        dataset: options.dataset,
        engine,
        ...(options.actionTimeoutMs ? { actionTimeoutMs: options.actionTimeoutMs } : {}),
        ...(options.handicap ? { handicap: true } : {}),
      }),
    close: () => engine.close(),
  };
}
